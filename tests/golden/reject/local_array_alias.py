import tack

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        tmp = tack.local_array(tack.f32, 4)
        view = tmp
        out[i] = view[0]
