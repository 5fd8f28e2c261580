# inspect: k --args f64[:,:,:]
import tack


@tack.kernel
def k(a):
    for i, j, l in tack.ndrange(a.shape[0], a.shape[1], a.shape[2]):
        a[i, j, l] = i + j + l
