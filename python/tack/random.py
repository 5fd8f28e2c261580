"""tack.random: random numbers in kernels with explicit state.

A kernel seeds a u32 state from the element it works on and a stream number (a frame, a pass),
and every draw returns the value and the next state::

    from tack import random

    @tack.kernel
    def jitter(pos, n, frame):
        for i in range(n):
            state = random.seed(i, frame)
            u, state = random.uniform(state)    # f32 in [0, 1)
            d, state = random.direction3(state)  # a unit 3-vector
            pos[i] += d * u

Nothing is hidden: the numbers are a pure function of (index, stream), so every backend and
every thread order draws the same ones, and the NumPy mirrors `np_seed`, `np_advance`,
`np_uniform`, `np_normal`, `np_direction2` and `np_direction3` reproduce them on the host for
references and tests. The generator is a 32-bit linear congruential step followed by PCG's
RXS-M-XS output permutation, in wrapping u32 arithmetic; `uniform` scales the top 24 bits by
2**-24, so it is exact everywhere. `normal` (Box-Muller) and the directions go through log,
sqrt, cos and sin, and agree across backends to those functions' rounding.

These are @tack.func device functions written in the kernel language itself.
"""

import math
from math import cos, log, sin, sqrt

import numpy as np

import tack

# Literal values only: tackc and the C++ API read this file's text as well (compiled in by
# cmake/TackTargets.cmake), and a tack.constant there must be a literal.
# The LCG multiplier and increment of PCG32's 32-bit variant.
_MUL = tack.constant(747796405, tack.u32)
_INC = tack.constant(2891336453, tack.u32)
_PERM = tack.constant(277803737, tack.u32)  # RXS-M-XS multiplier
_S28 = tack.constant(28, tack.u32)
_S22 = tack.constant(22, tack.u32)
_S8 = tack.constant(8, tack.u32)
_S4 = tack.constant(4, tack.u32)
_TWO_PI = tack.constant(6.283185307179586)  # 2 * math.pi
_UNIT = tack.constant(5.9604644775390625e-08)  # 2**-24, exactly

assert float(_TWO_PI) == 2 * math.pi and float(_UNIT) == 2.0**-24


@tack.func
def advance(state):
    """The state after `state`: one LCG step, permuted; also 32 random bits."""
    x = tack.u32(state) * _MUL + _INC
    word = ((x >> ((x >> _S28) + _S4)) ^ x) * _PERM
    return (word >> _S22) ^ word


@tack.func
def seed(index, stream):
    """The state for element `index` of `stream`."""
    return advance(tack.u32(index) ^ advance(tack.u32(stream)))


@tack.func
def uniform(state):
    """An f32 in [0, 1) and the next state."""
    return float(state >> _S8) * _UNIT, advance(state)


@tack.func
def normal(state):
    """A standard normal f32 (Box-Muller, two states) and the next state."""
    u1 = 1.0 - float(state >> _S8) * _UNIT  # in (0, 1]: log is finite
    state2 = advance(state)
    u2 = float(state2 >> _S8) * _UNIT
    return sqrt(-2.0 * log(u1)) * cos(_TWO_PI * u2), advance(state2)


@tack.func
def direction2(state):
    """A unit 2-vector with a uniformly distributed angle, and the next state."""
    a = _TWO_PI * float(state >> _S8) * _UNIT
    return [cos(a), sin(a)], advance(state)


@tack.func
def direction3(state):
    """A unit 3-vector uniformly distributed on the sphere (two states), and the next state."""
    a = _TWO_PI * float(state >> _S8) * _UNIT
    state2 = advance(state)
    z = float(state2 >> _S8) * _UNIT * 2.0 - 1.0
    r = sqrt(1.0 - z * z)
    return [r * cos(a), r * sin(a), z], advance(state2)


# ---- NumPy mirrors: the same functions over arrays of states ----------------------------------


def np_advance(state):
    """advance() over an array of states, in NumPy: the same u32 values."""
    x = np.asarray(state).astype(np.uint32)
    with np.errstate(over="ignore"):
        x = x * np.uint32(_MUL) + np.uint32(_INC)
        word = ((x >> ((x >> np.uint32(28)) + np.uint32(4))) ^ x) * np.uint32(_PERM)
    return (word >> np.uint32(22)) ^ word


def np_seed(index, stream):
    """seed() over arrays of indices and streams, in NumPy."""
    return np_advance(np.asarray(index).astype(np.uint32) ^ np_advance(stream))


def _np_unit(state):
    bits = np.asarray(state, dtype=np.uint32) >> np.uint32(8)
    return bits.astype(np.float32) * np.float32(_UNIT)


def np_uniform(state):
    """uniform() over an array of states, in NumPy: (values, next states)."""
    return _np_unit(state), np_advance(state)


def np_normal(state):
    """normal() over an array of states, in NumPy: (values, next states)."""
    f = np.float32
    u1 = f(1.0) - _np_unit(state)
    state2 = np_advance(state)
    u2 = _np_unit(state2)
    return np.sqrt(f(-2.0) * np.log(u1)) * np.cos(f(_TWO_PI) * u2), np_advance(state2)


def np_direction2(state):
    """direction2() over an array of states, in NumPy: ((n, 2) vectors, next states)."""
    a = np.float32(_TWO_PI) * _np_unit(state)
    return np.stack([np.cos(a), np.sin(a)], axis=-1).astype(np.float32), np_advance(state)


def np_direction3(state):
    """direction3() over an array of states, in NumPy: ((n, 3) vectors, next states)."""
    f = np.float32
    a = f(_TWO_PI) * _np_unit(state)
    state2 = np_advance(state)
    z = _np_unit(state2) * f(2.0) - f(1.0)
    r = np.sqrt(f(1.0) - z * z)
    return np.stack([r * np.cos(a), r * np.sin(a), z], axis=-1).astype(f), np_advance(state2)


__all__ = [
    "advance",
    "direction2",
    "direction3",
    "normal",
    "np_advance",
    "np_direction2",
    "np_direction3",
    "np_normal",
    "np_seed",
    "np_uniform",
    "seed",
    "uniform",
]
