# tack.random from the C++ side: the compiled-in text of python/tack/random.py.
# inspect: draws --args f32[:],u32
import tack
from tack import random


@tack.kernel
def draws(out, stream):
    for i in range(out.shape[0]):
        state = random.seed(i, stream)
        u, state = random.uniform(state)
        out[i] = u
