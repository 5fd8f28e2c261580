import tack

@tack.func
def f(a):
    return a
    assert a > 0
