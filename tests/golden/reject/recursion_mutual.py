import tack

@tack.func
def f(a):
    return g(a)

@tack.func
def g(a):
    return f(a)
