"""tack.algorithms: statistics, prefix scans, copies, sorting and segmented reductions, all
written as Tack kernels, so every backend runs them (docs/spec/contract.md#c31).

`import tack` loads this package on first use (`tack.algorithms.var(...)`, in host code and
in kernels alike), so importing tack stays as fast without it.

Other distributions add modules here (tack-vis ships `tack/algorithms/flying_edges.py` and
others): the package path is extended with every `tack/algorithms` folder on the path, and
since only this `__init__` ever runs, it re-exports their worklets when they are present, so
`from tack.algorithms import flying_edges` gives the function. A worklet module that is present
but cannot be imported (a missing dependency or core feature) leaves the core algorithms usable;
its names raise ImportError, with the reason, when used.
"""

import importlib
import importlib.util
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

# Worklet modules of other distributions and the names each contributes (tack-vis).
_WORKLETS = {
    "cell_to_point": ("cell_to_point",),
    "compute_normals": ("compute_normals",),
    "flying_edges": ("MCTables", "UniformGrid", "flying_edges", "flying_edges_multiblock"),
}
_unavailable = {}


def _reexport_worklets():
    for module, names in _WORKLETS.items():
        qualified = f"{__name__}.{module}"
        if importlib.util.find_spec(qualified) is None:
            continue
        try:
            loaded = importlib.import_module(qualified)
        except (ImportError, AttributeError) as e:
            _unavailable.update(dict.fromkeys(names, f"{qualified}: {type(e).__name__}: {e}"))
            continue
        for name in names:
            globals()[name] = getattr(loaded, name)
            __all__.append(name)


def __getattr__(name):
    if name in _unavailable:
        raise ImportError(f"tack.algorithms.{name} is unavailable: {_unavailable[name]}")
    raise AttributeError(f"module 'tack.algorithms' has no attribute {name!r}")


_reexport_worklets()
