"""Answers to the core's questions about names: kernels capture no Python values except
tack.constant names and math.pi, math.e and math.tau, and calls are bound statically
(docs/spec/contract.md#a6, #a22).

The core asks, for a name as spelled in kernel source ("SCALE", "cfg.SCALE", "tack.sqrt",
"helpers.norm2"), what it is bound to in the defining function's namespace: closure cells,
then globals, then builtins; dotted names are followed through module objects only. The
answer is one of

    ("unbound",)                     nothing by that name (a bare name may be an intrinsic)
    ("intrinsic", name)              the same object as tack.X / math.X / builtins.X
    ("int", value, dtype | None)     a tack.constant (or math.pi, math.e, math.tau: "float")
    ("float", value, dtype | None)
    ("func", source)                 a @tack.func (its parsed source object)
    ("other", description)           anything else, described for the error message

The core memoizes each answer per function, so bindings are read once.
"""

import builtins
import math as _math
import sys as _sys
import types

from . import _tack
from ._intrinsics import ROWS as _BUILTINS

_UNBOUND = ("unbound",)
_MATH_CONSTANTS = {id(_math.pi): _math.pi, id(_math.e): _math.e, id(_math.tau): _math.tau}
_intrinsics = None  # id(object) -> (object, canonical name)
_intrinsic_names = None  # the builtin names without a dot


def _intrinsic_as_spelled(obj, name):
    """The common case without building the table: the kernel wrote the intrinsic's own name and
    it is bound to the very object tack, tack.math, math or builtins has under that name (the
    table's answer too, as no intrinsic object has two names). Building the table was a sixth of
    a new process's first call with a warm disk cache."""
    global _intrinsic_names
    if _intrinsic_names is None:
        _intrinsic_names = frozenset(row[0] for row in _BUILTINS if "." not in row[0])
    if name not in _intrinsic_names:
        return None
    import tack
    import tack.math

    for module in (builtins, _math, tack, tack.math):
        if vars(module).get(name) is obj:
            return ("intrinsic", name)
    return None


def _intrinsic_table():
    global _intrinsics
    if _intrinsics is None:
        import tack
        import tack.math

        table = {}
        for name, *_ in _BUILTINS:
            head, _, member = name.partition(".")  # "Matrix.identity": a class's static method
            for module in (builtins, _math, tack, tack.math):
                obj = vars(module).get(head)
                if obj is not None and member:
                    obj = vars(obj).get(member) if isinstance(obj, type) else None
                    obj = getattr(obj, "__func__", obj)
                if obj is not None and not isinstance(obj, (int, float)):
                    table.setdefault(id(obj), (obj, name))
        _intrinsics = table
    return _intrinsics


def _describe(obj):
    if isinstance(obj, types.ModuleType):
        return f"module '{obj.__name__}'"
    if isinstance(obj, _tack.Kernel):
        return f"the @tack.kernel '{obj.name}'"
    return repr(type(obj))


def classify(obj, name=None):
    """The answer for `obj`; `name`, the last part of the name the kernel wrote, is a hint."""
    from ._constants import classify as constant_answer
    from ._kernels import Func

    if isinstance(obj, Func):
        return ("func", obj._source)
    answer = constant_answer(obj)
    if answer is not None:
        return answer
    if _MATH_CONSTANTS.get(id(obj)) is obj:
        return ("float", obj, None)
    if name is not None and (hit := _intrinsic_as_spelled(obj, name)) is not None:
        return hit
    entry = _intrinsic_table().get(id(obj))
    if entry is not None and entry[0] is obj:
        return ("intrinsic", entry[1])
    return ("other", _describe(obj))


def _lazy_submodule(module, name):
    """Whether `module.name` is one of tack's submodules that load on first use: looking one
    up imports it (any other module attribute is read from the module's dict, running no
    code)."""
    package = _sys.modules.get(__package__)
    return module is package and name in getattr(package, "_LAZY_SUBMODULES", ())


def resolver(fn):
    """The resolve(dotted_name) function for `fn`'s namespace."""
    code = fn.__code__
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    namespace = fn.__globals__
    builtin_ns = namespace.get("__builtins__", builtins)
    if isinstance(builtin_ns, types.ModuleType):
        builtin_ns = vars(builtin_ns)

    def lookup(head):
        if head in cells:
            try:
                return cells[head].cell_contents
            except ValueError:  # an empty cell: assigned later in the enclosing function
                return _UNBOUND
        if head in namespace:
            return namespace[head]
        return builtin_ns.get(head, _UNBOUND)

    def resolve(dotted):
        parts = dotted.split(".")
        obj = lookup(parts[0])
        if obj is _UNBOUND:
            return _UNBOUND
        for part in parts[1:]:
            if isinstance(obj, type) and id(obj) in _intrinsic_table():
                # tack.Matrix.identity: a static method of an intrinsic class.
                member = getattr(vars(obj).get(part), "__func__", None)
                return (
                    classify(member)
                    if member is not None
                    else ("other", f"attribute '{part}' of {_describe(obj)}")
                )
            if not isinstance(obj, types.ModuleType):
                return ("other", f"attribute '{part}' of {_describe(obj)}")
            try:
                obj = vars(obj)[part]
            except KeyError:
                if not _lazy_submodule(obj, part):
                    return ("other", f"'{part}', which module '{obj.__name__}' does not define")
                obj = getattr(obj, part)  # imports it, as the host's tack.random.x would
        answer = classify(obj, parts[-1])
        if answer[0] == "other" and isinstance(obj, (int, float)) and not isinstance(obj, bool):
            kind = "float" if isinstance(obj, float) else "int"
            return (
                "other",
                f"a plain Python {kind} ({obj!r}; declare it as "
                f"`{dotted} = tack.constant(...)` to read it in kernels)",
            )
        return answer

    return resolve
