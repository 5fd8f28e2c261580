# inspect: k --args i32[:],i32[:],i32[:]
import tack


@tack.func
def divmod_(a, b):
    return a // b, a % b


@tack.kernel
def k(a, q, r):
    for i in range(a.shape[0]):
        q[i], r[i] = divmod_(a[i], 7)
