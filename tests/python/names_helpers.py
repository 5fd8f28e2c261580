"""A module whose @tack.func and tack.constant objects kernels in test_names.py use through
module-qualified and imported-alias spellings (CONTRACT A22)."""

import math as m

import tack as tk

OFFSET = tk.constant(100)
NOT_A_CONSTANT = 5


@tk.func
def norm2(x, y):
    return m.sqrt(x * x + y * y)


@tk.func
def shifted(v):
    return v + OFFSET  # resolves in this module, not the caller's
