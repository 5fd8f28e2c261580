"""@tack.data_oriented and tack.template() (docs/spec/contract.md#a23).

An instance of a @tack.data_oriented class passed to a kernel is a template: its class
constants are compiled in, its fields and numbers are extra kernel arguments (a new value of
an instance number never recompiles), and its @tack.func methods are inlined with `self` bound
to the instance. The core reads the instance at each call (python/bindings/templates.cpp).
A @tack.kernel defined in such a class is called as `obj.kernel(args)`. A class that declares
`__tack_iterate__` (one to three of its integer attributes, fastest first) can be looped over in
kernels: `for c in obj`.
"""

import types

from . import _tack
from ._tack import Kernel


def data_oriented(cls):
    """Class decorator: instances may be passed to kernels as templates."""
    cls._data_oriented = True
    return cls


class _TemplateAnnotation:
    """What tack.template() returns: a parameter annotation with no effect; an instance is
    recognized by its class's `_data_oriented` flag."""

    def __repr__(self):
        return "tack.template()"


def template():
    """A parameter annotation marking a template argument, as in the Python Tack; it has no
    effect (an instance of a @tack.data_oriented class is a template wherever it is passed)."""
    return _TemplateAnnotation()


def _bind_kernel(kernel, obj, cls=None):
    # A kernel defined in a class body: obj.k(args) is Class.k(obj, args) (A25).
    if obj is None:
        return kernel
    return types.MethodType(kernel, obj)


Kernel.__get__ = _bind_kernel


def _watch_class(cls, token):
    # Called by the core when it first sees a template class: once the class is collected, the
    # core forgets its views and drops the IR templates and variants built for them (D6).
    # weakref loads here, with the first template class, rather than with `import tack`.
    import weakref

    finalizer = weakref.finalize(cls, _tack._forget_template_class, token)
    finalizer.atexit = False  # nothing to drop at exit
