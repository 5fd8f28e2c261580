import tack

@tack.func
def f(a):
    continue
