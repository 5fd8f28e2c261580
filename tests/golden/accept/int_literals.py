# inspect: k --args i64[:]
import tack


@tack.kernel
def k(out):
    for i in range(out.shape[0]):
        out[i] = 42 + 0x2A + 0o52 + 0b101010 + 1_000
