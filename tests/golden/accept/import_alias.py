# inspect: k --args i32[:],f32[:]
import tack as tk


@tk.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = tk.f32(a[i]) * tk.sqrt(2.0)
