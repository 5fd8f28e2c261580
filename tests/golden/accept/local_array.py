# inspect: k --args f32[:],f32[:]
import tack


@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        tmp = tack.local_array(tack.f32, 4)
        for j in range(4):
            tmp[j] = a[i] * j
        out[i] = tmp[0] + tmp[3]
