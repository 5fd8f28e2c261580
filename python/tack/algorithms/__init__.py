"""tack.algorithms: statistics, prefix scans, copies, sorting and segmented reductions, all
written as Tack kernels, so every backend runs them (CONTRACT C31-C35).

`import tack` does not load this package: `from tack.algorithms import var`, or
`import tack.algorithms` first. Other distributions add their own modules here (tack-vis
ships `tack/algorithms/flying_edges.py` and others): the package path is extended with every
`tack/algorithms` folder on sys.path.
"""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)

# `copy` is re-exported over the submodule's name: tack.algorithms.copy is the function, and
# `from tack.algorithms.copy import copy_with_offset` still reaches the module (C34).
from .copy import copy, fill_value  # noqa: E402
from .scan import exclusive_scan, inclusive_scan  # noqa: E402
from .sort import argsort, gather, reduce_by_key, sort_by_key, unique  # noqa: E402
from .stats import absmax, count_nonzero, dot, histogram, norm, std, var  # noqa: E402

__all__ = [
    "absmax", "argsort", "copy", "count_nonzero", "dot", "exclusive_scan", "fill_value",
    "gather", "histogram", "inclusive_scan", "norm", "reduce_by_key", "sort_by_key", "std",
    "unique", "var",
]
