import tack

@tack.func
def f(a):
    return a * scale
