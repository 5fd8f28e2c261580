# inspect: k --args f32[:],f64[:],i32[:]
from math import sqrt, pi
from tack import kernel, f64, atomic_add


@kernel
def k(a, out, acc):
    for i in range(out.shape[0]):
        out[i] = f64(sqrt(a[i])) * pi
        atomic_add(acc, 0, 1)
