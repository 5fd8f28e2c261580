import tack

@tack.func
def f(a):
    return f(a - 1)
