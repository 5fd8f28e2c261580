import os

import tack

N = int(os.environ.get("N", "4"))
f32 = tack.f32  # an alias: kernels read it as tack.f32


@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        out[i] = f32(i) * N
