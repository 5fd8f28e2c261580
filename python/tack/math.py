"""tack.math: shader-style device helpers with their GLSL definitions, usable only inside
kernels: the helpers of the builtin table (src/builtins/builtins.cpp), with their signatures in
math.pyi."""

from ._intrinsics import bind as _bind

globals().update(_bind("tack.math"))
