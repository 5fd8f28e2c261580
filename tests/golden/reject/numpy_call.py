import tack
import numpy as np

@tack.kernel
def k(x, out, n):
    for i in range(out.shape[0]):
        out[i] = np.sqrt(x[i])
