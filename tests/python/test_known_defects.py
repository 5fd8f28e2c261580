"""Kernels that a vendor toolchain is known to miscompile, run on every backend against an
oracle written from the contract's integer rules (Python integers, no Tack code), and marked
as strict expected failures where the runtime reports an affected release. A fixed toolchain
then reports XPASS, and its entry in KNOWN_MISCOMPILES goes (docs/workarounds.md lists them).

The one entry so far (the seed, SEED-AUDIT 'HIP · Known defect'): ROCm 7.0.2's and 7.1.1's device
compiler (AMD clang 20 inside hipRTC's comgr) evaluates a 64-bit signed `-253 < -1` inside
`t2` below as false at -O1 and above, so out2 is 255 where it must be 127. The source is free
of undefined behaviour and is right on CUDA, on the CPU and under ROCm's clang 23. The release
comes from hipRuntimeGetVersion (Device.runtime_version): hiprtcVersion() reports 9.0 on ROCm
7.0.2, so it cannot tell the releases apart.
"""

import ast
import itertools
import operator

import numpy as np
import pytest

import tack

# The kernel, a generated composition of wraps, promotions, shifts and conditionals
# (inputs x, y: u8; z: i8).
T0 = "(~((z + (y * z)) if ((((-1) + y) + (-(-2))) > z) else y))"
T1 = (
    "(((tack.u32(3) >> 22) & ((x - x) if (x > (y - x)) else ((-2) | z))) if (((~(~t0)) + "
    "((100 - x) ^ (t0 >> (x & 15)))) != tack.i32(((z - 1000) - (y + x)))) else (((~y) if "
    "((y if (7 != x) else x) < (1 * 1)) else (y * x)) ^ tack.u16((z - t0))))"
)
T2 = (
    "(((x - (z if (t0 != y) else t0)) + (~(x * z))) if ((((t1 | 2) ^ (-255)) | "
    "(tack.i16(t0) * tack.i64(t0))) < (((t1 if (y < 7) else t1) - (1 >> (t1 & 31))) ^ "
    "tack.u16((x >> 7)))) else ((tack.i16(x) if (tack.u32(y) > tack.u16(x)) else "
    "(t1 ^ (-2))) >> 12))"
)
SOURCE = f"""import tack


@tack.kernel
def composed(x_in, y_in, z_in, n, out0, out1, out2):
    for i in range(n):
        x = x_in[i]
        y = y_in[i]
        z = z_in[i]
        t0 = {T0}
        t1 = {T1}
        t2 = {T2}
        out0[i] = t0
        out1[i] = t1
        out2[i] = t2
"""
OUT_TYPES = ("i16", "i64", "u8")

# (backend, test) -> the (major, minor) releases whose toolchain miscompiles it.
KNOWN_MISCOMPILES = {("hip", "composed"): ((7, 0), (7, 1))}

# --- the oracle: CONTRACT's integer rules over Python integers ----------------------------

BITS = {f"{s}{b}": b for s in "iu" for b in (8, 16, 32, 64)}


def signed(t):
    return t[0] == "i"


def wrap(v, t):
    v &= (1 << BITS[t]) - 1
    return v - (1 << BITS[t]) if signed(t) and v >> (BITS[t] - 1) else v


def promote(a, b):
    """The narrowest type holding both full ranges (signed and unsigned meet in a signed type
    twice the unsigned width)."""
    if signed(a) == signed(b):
        return a if BITS[a] >= BITS[b] else b
    s, u = (a, b) if signed(a) else (b, a)
    return f"i{max(BITS[s], 2 * BITS[u])}"


ARITH = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}
COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
           ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne}


def evaluate(node, env):
    """(value, type) of an expression, wrapped at every node."""
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Constant):
        return node.value, "i32"  # untyped literals are i32
    if isinstance(node, ast.UnaryOp):
        v, t = evaluate(node.operand, env)
        return wrap(-v if isinstance(node.op, ast.USub) else ~v, t), t
    if isinstance(node, ast.BinOp):
        (a, ta), (b, tb) = evaluate(node.left, env), evaluate(node.right, env)
        if isinstance(node.op, ast.LShift):
            return wrap(a << b, ta), ta
        if isinstance(node.op, ast.RShift):
            return a >> b, ta  # arithmetic for signed values, logical for unsigned ones
        t = promote(ta, tb)
        return wrap(ARITH[type(node.op)](a, b), t), t
    if isinstance(node, ast.Compare):
        (a, _), (b, _) = evaluate(node.left, env), evaluate(node.comparators[0], env)
        return int(COMPARE[type(node.ops[0])](a, b)), "i32"  # promotion keeps both values
    if isinstance(node, ast.IfExp):
        t = promote(evaluate(node.body, env)[1], evaluate(node.orelse, env)[1])
        chosen = node.body if evaluate(node.test, env)[0] else node.orelse
        return wrap(evaluate(chosen, env)[0], t), t
    if isinstance(node, ast.Call):  # tack.<type>(e): modular conversion
        t = node.func.attr
        return wrap(evaluate(node.args[0], env)[0], t), t
    raise TypeError(ast.dump(node))


def expected(x, y, z):
    env = {"x": (x, "u8"), "y": (y, "u8"), "z": (z, "i8")}
    outs = []
    for name, text, out_type in zip(("t0", "t1", "t2"), (T0, T1, T2), OUT_TYPES):
        env[name] = evaluate(ast.parse(text, mode="eval").body, env)
        outs.append(wrap(env[name][0], out_type))
    return outs


def test_the_oracle_wraps_inside_the_tree():
    assert wrap(127 + 1, "i8") == -128 and wrap(-1, "u64") == 2**64 - 1
    assert promote("u8", "i8") == "i16" and promote("i32", "u32") == "i64"
    # u8 200 - 255 is computed in u8 and wraps before the comparison.
    node = ast.parse("((x - y) > x)", mode="eval").body
    assert evaluate(node, {"x": (200, "u8"), "y": (255, "u8")}) == (1, "i32")


# --- the rule that marks a known defect ----------------------------------------------------


def release(device):
    """(major, minor) of the vendor runtime's release (Device.runtime_version), or None."""
    version = device.runtime_version
    if not version:
        return None
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def mark_known_miscompile(request, backend, name):
    releases = KNOWN_MISCOMPILES.get((backend, name), ())
    got = release(tack._tack._default_device())
    if got in releases:
        request.applymarker(pytest.mark.xfail(
            strict=True, reason=f"{backend} {got[0]}.{got[1]}'s device compiler miscompiles "
                                f"'{name}' (a 64-bit signed compare)"))


def test_hip_reports_its_release_and_only_7_0_and_7_1_are_marked(backend):
    version = tack._tack._default_device().runtime_version
    if backend in ("hip", "cuda"):
        assert version and all(p.isdigit() for p in version.split(".")), version
    rule = KNOWN_MISCOMPILES[("hip", "composed")]
    assert (7, 0) in rule and (7, 1) in rule and (7, 2) not in rule and (6, 4) not in rule


# --- the case -------------------------------------------------------------------------------


def test_the_composed_integer_kernel_matches_the_oracle(backend, tmp_path, request):
    mark_known_miscompile(request, backend, "composed")
    path = tmp_path / "composed.py"
    path.write_text(SOURCE)
    namespace = {}
    exec(compile(SOURCE, str(path), "exec"), namespace)
    kernel = namespace["composed"]
    # Every pair of u8 and i8 edge values, then seeded values over the full ranges (a length
    # past one 256-lane group, with a partial last group).
    u8_edges, i8_edges = (0, 1, 7, 127, 128, 254, 255), (-128, -127, -2, -1, 0, 1, 126, 127)
    cases = list(itertools.product(u8_edges, u8_edges, i8_edges))
    rng = np.random.default_rng(31)
    cases += [(int(a), int(b), int(c)) for a, b, c in zip(
        rng.integers(0, 256, 700), rng.integers(0, 256, 700), rng.integers(-128, 128, 700))]
    n = len(cases)
    x, y, z = (np.array(col, dtype=dt) for col, dt in zip(zip(*cases), ("u1", "u1", "i1")))
    outs = [tack.zeros(getattr(tack, t), n) for t in OUT_TYPES]
    kernel(tack.field_like(x), tack.field_like(y), tack.field_like(z), n, *outs)
    got = [o.to_numpy() for o in outs]
    for i, case in enumerate(cases):
        want = expected(*case)
        have = [int(g[i]) for g in got]
        assert have == want, f"{backend}: inputs (x, y, z) = {case}: got {have}, want {want}"
