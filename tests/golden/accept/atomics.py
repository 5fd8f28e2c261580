# inspect: histogram --args f32[:],i32[:],i32
# inspect: histogram --args f32[:],u64[:],i32
import tack


@tack.kernel
def histogram(data, bins, nbins):
    for i in range(data.shape[0]):
        b = int(data[i] * nbins)
        tack.atomic_add(bins, b, 1)
        tack.atomic_min(bins, 0, 0)
        tack.atomic_max(bins, nbins - 1, 0)
