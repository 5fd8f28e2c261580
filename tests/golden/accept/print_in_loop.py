# inspect: k --args f32[:]
import tack


@tack.kernel
def k(a):
    for i in range(a.shape[0]):
        print("value", i, a[i])
