import tack

@tack.func
def f(a):
    while a > 0:
        return a
    return a
