# inspect: k --args f32[:],f32[:]
# inspect: k --args f64[:],f64[:]
import tack


@tack.kernel
def k(a, total):
    for i in range(a.shape[0]):
        atomic_add(total, 0, a[i])
