import tack

@tack.func
def f(a):
    assert a > 0
    return a
