# The signatures of _templates.py (see _fields.pyi for why a stub).
from typing import Any, TypeVar

_C = TypeVar("_C", bound=type)

def data_oriented(cls: _C) -> _C:
    """Class decorator: instances may be passed to kernels as templates."""

def template() -> Any:
    """A parameter annotation marking a template argument (it has no effect)."""
