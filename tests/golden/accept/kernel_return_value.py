# inspect: first_plus --args f32[:],f32
import tack


@tack.kernel
def first_plus(a, b) -> tack.f32:
    for i in range(a.shape[0]):
        a[i] = a[i] + b
    return a[0] + b
