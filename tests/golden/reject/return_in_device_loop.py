import tack

@tack.func
def f(a):
    for j in range(3):
        return a
    return a
