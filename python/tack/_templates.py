"""@tack.data_oriented and tack.template() (CONTRACT A23-A26).

An instance of a @tack.data_oriented class passed to a kernel is a template: its class
constants are compiled in, its fields and numbers are extra kernel arguments (a new value of
an instance number never recompiles), and its @tack.func methods are inlined with `self` bound
to the instance. The core reads the instance at each call (python/bindings/templates.cpp).
A @tack.kernel defined in such a class is called as `obj.kernel(args)`.
"""

import functools

from ._tack import Kernel


def data_oriented(cls):
    """Class decorator: instances may be passed to kernels as templates."""
    cls._data_oriented = True
    return cls


class _TemplateAnnotation:
    """What tack.template() returns: a parameter annotation with no effect (A26)."""

    def __repr__(self):
        return "tack.template()"


def template():
    return _TemplateAnnotation()


def _bind_kernel(kernel, obj, cls=None):
    # A kernel defined in a class body: obj.k(args) is Class.k(obj, args) (A25).
    if obj is None:
        return kernel
    return functools.partial(kernel, obj)


Kernel.__get__ = _bind_kernel
