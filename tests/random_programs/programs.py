"""Random, well-defined Tack kernels (Csmith / YARPGen style) and their reference semantics.

A program is a tree of statement and expression nodes. Each node renders itself as kernel
source and evaluates itself as serial Python: integers as Python ints reduced mod 2^N at every
node (CONTRACT B9-B16 and DECISIONS "Defined where the contract leaves no portable result"),
floats as NumPy float32/float64 scalars that carry a running bound on the error a conforming
backend may add (contraction of a*b+c, 4-ulp division and sqrt; CONTRACT B23, F5). Float values
never steer control flow or integers unless they are exact (loads, literals, conversions from
integers, selections of exact values): comparisons, floor/ceil, float // and %, and float->int
conversions only see exact operands, so integer results must be bit-identical everywhere.

The generator knows the typing rules (promotion B6, literal typing B3/B4, result types B7, one
type per local B8) so every program it emits is valid; a compile error is a finding too.
"""

import math
import random

import numpy as np

# --- types ------------------------------------------------------------------------------------


class DT:
    def __init__(self, name, bits, signed, is_float, np_type):
        self.name, self.bits, self.signed, self.is_float, self.np = (
            name, bits, signed, is_float, np_type)
        if not is_float:
            self.lo = -(1 << (bits - 1)) if signed else 0
            self.hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1

    def __repr__(self):
        return self.name


T = {d.name: d for d in [
    DT("i8", 8, True, False, np.int8), DT("u8", 8, False, False, np.uint8),
    DT("i16", 16, True, False, np.int16), DT("u16", 16, False, False, np.uint16),
    DT("i32", 32, True, False, np.int32), DT("u32", 32, False, False, np.uint32),
    DT("i64", 64, True, False, np.int64), DT("u64", 64, False, False, np.uint64),
    DT("f32", 32, True, True, np.float32), DT("f64", 64, True, True, np.float64)]}
INTS = [T[n] for n in ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"]]
FLOATS = [T["f32"], T["f64"]]
I32, I64, U64, F32, F64 = T["i32"], T["i64"], T["u64"], T["f32"], T["f64"]


def promote(a, b):
    """CONTRACT B6; None where Tack raises TypeError (signed with u64)."""
    if a is b:
        return a
    if a.is_float or b.is_float:
        return F64 if F64 in (a, b) else F32
    if a.signed == b.signed:
        return a if a.bits >= b.bits else b
    s, u = (a, b) if a.signed else (b, a)
    need = max(s.bits, u.bits + 1)
    for t in [T["i8"], T["i16"], I32, I64]:
        if t.bits >= need:
            return t
    return None


def wrap(v, t):
    v &= (1 << t.bits) - 1
    if t.signed and v >> (t.bits - 1):
        v -= 1 << t.bits
    return v


def literal_type(v):
    """CONTRACT B3."""
    if -(2**31) <= v < 2**31:
        return I32
    if -(2**63) <= v < 2**63:
        return I64
    return U64


# --- values -----------------------------------------------------------------------------------

INF = float("inf")


class V:
    """A value: dtype, Python int or NumPy float scalar, error bound (floats only)."""

    __slots__ = ("t", "v", "e")

    def __init__(self, t, v, e=0.0):
        self.t, self.v, self.e = t, v, e


def ulp(x):
    return float(np.spacing(np.abs(x))) if np.isfinite(x) else 0.0


def to_type(val, t):
    """Conversion with the kernel language's rules (CONTRACT B10, B14, DECISIONS)."""
    s = val.t
    if not t.is_float:
        if not s.is_float:
            return V(t, wrap(val.v, t))
        f = float(val.v)
        if math.isnan(f):
            return V(t, 0)
        if f <= t.lo:
            return V(t, t.lo)
        if f >= t.hi + 1:
            return V(t, t.hi)
        return V(t, int(f))  # truncates toward zero
    if s.is_float:
        with np.errstate(all="ignore"):  # f64 -> f32 overflows to inf, as on every backend
            r = t.np(val.v)
        e = val.e + (4 * ulp(r) if t.bits < s.bits and val.e else 0.0)
        return V(t, r, e)
    # One rounding from the exact integer, as LLVM's and C's conversions do.
    src = np.array([val.v], dtype=s.np)
    return V(t, src.astype(t.np)[0])


def truthy(val):
    return bool(val.v != 0) or (val.t.is_float and bool(np.isnan(val.v)))


def int_binop(op, a, b, t):
    x, y = a, b
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "//":
        r = 0 if y == 0 else x // y
    elif op == "%":
        r = 0 if y == 0 else x % y
    elif op == "&":
        r = x & y
    elif op == "|":
        r = x | y
    elif op == "^":
        r = x ^ y
    else:
        raise AssertionError(op)
    return wrap(r, t)


def float_binop(op, a, b, t):
    """a, b: V already of type t. Returns V with the propagated error bound."""
    x, y = a.v, b.v
    with np.errstate(all="ignore"):
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        elif op == "/":
            r = x / y
        elif op == "//":
            r = np.floor_divide(x, y)
        elif op == "%":
            r = np.remainder(x, y)
        else:
            raise AssertionError(op)
    r = t.np(r)
    ea, eb = a.e, b.e
    if ea == 0 and eb == 0 and op in ("//", "%"):
        return V(t, r, 0.0 if not np.isfinite(r) else 4 * ulp(r))
    if not np.isfinite(r) or math.isinf(ea) or math.isinf(eb):
        # An overflow or NaN from inexact operands may be a finite value elsewhere.
        exact = ea == 0 and eb == 0 and (op != "/" or y == 0)
        return V(t, r, 0.0 if exact else INF)
    fx, fy = abs(float(x)), abs(float(y))
    if op in ("+", "-"):
        # ulp(x) + ulp(y): either operand may be a product a backend contracted into an fma.
        e = ea + eb + 4 * (ulp(x) + ulp(y) + ulp(r))
    elif op == "*":
        e = ea * fy + eb * fx + ea * eb + 4 * ulp(r)
    else:  # "/"
        if fy <= eb or fy == 0:
            return V(t, r, INF)
        e = (ea + abs(float(r)) * eb) / (fy - eb) + 4 * ulp(r)
    return V(t, r, e)


# --- expressions ------------------------------------------------------------------------------


class Expr:
    exact = True  # for floats: no error bound (safe to compare, floor, convert to int)


class Lit(Expr):
    def __init__(self, t, v):
        self.t, self.v = t, v  # a float literal's t is the type it adopts (CONTRACT B4)

    def render(self):
        if self.t.is_float:
            s = repr(float(self.v))
            return f"({s})" if s.startswith("-") else s
        return f"({self.v})" if self.v < 0 else str(self.v)

    def ev(self, env):
        return V(self.t, self.t.np(self.v) if self.t.is_float else self.v)


class Name(Expr):
    def __init__(self, name, t, exact=True):
        self.name, self.t, self.exact = name, t, exact

    def render(self):
        return self.name

    def ev(self, env):
        return env.vars[self.name]


class Index(Expr):
    """The parallel iteration's flat index (i, or i * W + j under ndrange)."""

    t = I64

    def __init__(self, width=None):
        self.width = width

    def render(self):
        return "i" if self.width is None else f"(i * {self.width} + j)"

    def ev(self, env):
        return V(I64, env.flat)


class Load(Expr):
    def __init__(self, field, t, index, n):
        self.field, self.t, self.index, self.n = field, t, index, n

    def render(self):
        return f"{self.field}[{self.index.render()}]"

    def ev(self, env):
        k = self.index.ev(env).v
        assert 0 <= k < self.n, (self.render(), k)
        v = env.fields[self.field][k]
        return V(self.t, self.t.np(v) if self.t.is_float else int(v))


class ArrLoad(Expr):
    def __init__(self, arr, t, index, size):
        self.arr, self.t, self.index, self.size = arr, t, index, size
        self.exact = not t.is_float  # float arrays may hold inexact values

    def render(self):
        return f"{self.arr}[{self.index.render()}]"

    def ev(self, env):
        k = self.index.ev(env).v
        assert 0 <= k < self.size
        return env.arrays[self.arr][k]


class Cast(Expr):
    def __init__(self, t, a):
        self.t, self.a = t, a
        self.exact = a.exact

    def render(self):
        if self.t is I32 and isinstance(self.a, (Name, Load)) and not self.a.t.is_float:
            return f"int({self.a.render()})"  # int(x) is the i32 cast (A41)
        if self.t is F32 and isinstance(self.a, (Name, Load)) and not self.a.t.is_float:
            return f"float({self.a.render()})"  # float(x) is the f32 cast
        return f"tack.{self.t.name}({self.a.render()})"

    def ev(self, env):
        return to_type(self.a.ev(env), self.t)


class Bin(Expr):
    def __init__(self, op, a, b, t):
        self.op, self.a, self.b, self.t = op, a, b, t
        self.exact = not t.is_float

    def render(self):
        return f"({self.a.render()} {self.op} {self.b.render()})"

    def ev(self, env):
        a, b, t = self.a.ev(env), self.b.ev(env), self.t
        op = self.op
        if op in ("<<", ">>"):
            c = b.v & (a.t.bits - 1)  # DECISIONS: shift counts modulo the width
            return V(t, wrap(a.v << c, t) if op == "<<" else a.v >> c)
        if op == "**":
            return V(t, wrap(pow(a.v, b.v, 1 << t.bits), t))
        if op == "/" and not a.t.is_float and not b.t.is_float:
            return float_binop("/", to_type(a, F32), to_type(b, F32), F32)
        if t.is_float:
            return float_binop(op, to_type(a, t), to_type(b, t), t)
        return V(t, int_binop(op, to_type(a, t).v, to_type(b, t).v, t))


class Un(Expr):
    def __init__(self, op, a):
        self.op, self.a, self.t = op, a, a.t
        self.exact = a.exact

    def render(self):
        return f"({self.op}{self.a.render()})" if self.op == "-" else f"(~{self.a.render()})"

    def ev(self, env):
        a = self.a.ev(env)
        if self.t.is_float:
            return V(self.t, -a.v, a.e)
        return V(self.t, wrap(-a.v if self.op == "-" else ~a.v, self.t))


class Cmp(Expr):
    """A comparison or chain of them; i32 0/1, middle operands evaluated once (B5, B25)."""

    t = I32

    def __init__(self, ops, operands):
        self.ops, self.operands = ops, operands

    def render(self):
        s = self.operands[0].render()
        for op, e in zip(self.ops, self.operands[1:]):
            s += f" {op} {e.render()}"
        return f"({s})"

    def ev(self, env):
        left = self.operands[0].ev(env)
        for op, e in zip(self.ops, self.operands[1:]):
            right = e.ev(env)
            t = promote(left.t, right.t)
            x, y = to_type(left, t).v, to_type(right, t).v
            ok = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y,
                  "!=": x != y}[op]
            if not ok:
                return V(I32, 0)
            left = right
        return V(I32, 1)


class BoolOp(Expr):
    t = I32

    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    def render(self):
        return f"({self.a.render()} {self.op} {self.b.render()})"

    def ev(self, env):
        if self.op == "and":
            return V(I32, int(truthy(self.a.ev(env)) and truthy(self.b.ev(env))))
        return V(I32, int(truthy(self.a.ev(env)) or truthy(self.b.ev(env))))


class Not(Expr):
    t = I32

    def __init__(self, a):
        self.a = a

    def render(self):
        return f"(not {self.a.render()})"

    def ev(self, env):
        return V(I32, int(not truthy(self.a.ev(env))))


class Ternary(Expr):
    def __init__(self, c, a, b):
        self.c, self.a, self.b = c, a, b
        self.t = promote(a.t, b.t)
        self.exact = a.exact and b.exact

    def render(self):
        return f"({self.a.render()} if {self.c.render()} else {self.b.render()})"

    def ev(self, env):
        return to_type((self.a if truthy(self.c.ev(env)) else self.b).ev(env), self.t)


class Call(Expr):
    """abs, min, max, sqrt, floor, ceil (CONTRACT B7, B21, B22)."""

    def __init__(self, fn, args, t):
        self.fn, self.args, self.t = fn, args, t
        self.exact = fn not in ("sqrt",) and all(a.exact for a in args)

    def render(self):
        return f"{self.fn}({', '.join(a.render() for a in self.args)})"

    def ev(self, env):
        vals = [to_type(a.ev(env), self.t) for a in self.args]
        t, fn = self.t, self.fn
        if not t.is_float:
            if fn == "abs":
                return V(t, wrap(abs(vals[0].v), t))
            pick = min if fn == "min" else max
            return V(t, pick(v.v for v in vals))
        with np.errstate(all="ignore"):
            if fn == "abs":
                return V(t, np.abs(vals[0].v), vals[0].e)
            if fn in ("min", "max"):
                f = np.fmin if fn == "min" else np.fmax
                r = vals[0].v
                for v in vals[1:]:
                    r = f(r, v.v)
                return V(t, t.np(r), max(v.e for v in vals))
            if fn in ("floor", "ceil"):
                return V(t, (np.floor if fn == "floor" else np.ceil)(vals[0].v))
            x = vals[0]  # sqrt
            r = np.sqrt(x.v)
            fx = float(x.v)
            if x.e == 0:
                return V(t, r, 4 * ulp(r))
            if math.isinf(x.e) or fx - x.e <= 0 or not np.isfinite(r):
                return V(t, r, INF)
            return V(t, r, x.e / math.sqrt(fx - x.e) + 4 * ulp(r))


class FuncCall(Expr):
    def __init__(self, func, args):
        self.func, self.args, self.t = func, args, func.ret
        self.exact = not func.ret.is_float

    def render(self):
        return f"{self.func.name}({', '.join(a.render() for a in self.args)})"

    def ev(self, env):
        return self.func.call(env, [to_type(a.ev(env), p) for a, p in
                                    zip(self.args, self.func.params)])


# --- statements -------------------------------------------------------------------------------


class Continue(Exception):
    pass


class Break(Exception):
    pass


class Stmt:
    pass


class Assign(Stmt):
    def __init__(self, name, t, e, aug=None):
        self.name, self.t, self.e, self.aug = name, t, e, aug

    def render(self, ind):
        if self.aug:
            return [f"{ind}{self.name} {self.aug}= {self.e.render()}"]
        v = self.e.render() if self.e.t is self.t else f"tack.{self.t.name}({self.e.render()})"
        return [f"{ind}{self.name} = {v}"]

    def ev(self, env):
        if self.aug:
            e = Bin(self.aug, Name(self.name, self.t), self.e, self.t).ev(env)
        else:
            e = self.e.ev(env)
        env.vars[self.name] = to_type(e, self.t)


class Store(Stmt):
    def __init__(self, field, t, index, e):
        self.field, self.t, self.index, self.e = field, t, index, e

    def render(self, ind):
        return [f"{ind}{self.field}[{self.index.render()}] = {self.e.render()}"]

    def ev(self, env):
        k = self.index.ev(env).v
        env.fields[self.field][k] = to_type(self.e.ev(env), self.t)


class AugStore(Stmt):
    """`out[idx] op= e`: the index once, the old value read before the right side (B25)."""

    def __init__(self, field, t, index, op, e):
        self.field, self.t, self.index, self.op, self.e = field, t, index, op, e

    def render(self, ind):
        return [f"{ind}{self.field}[{self.index.render()}] {self.op}= {self.e.render()}"]

    def ev(self, env):
        k = self.index.ev(env).v
        old = env.fields[self.field][k]
        r = Bin(self.op, _Const(old), self.e, promote(self.t, self.e.t)).ev(env)
        env.fields[self.field][k] = to_type(r, self.t)


class _Const(Expr):
    def __init__(self, val):
        self.val, self.t = val, val.t

    def ev(self, env):
        return self.val


class TupleAssign(Stmt):
    """`a, b = x, y`: every right side first, then the targets left to right (B25)."""

    def __init__(self, names, types, exprs):
        self.names, self.types, self.exprs = names, types, exprs

    def render(self, ind):
        rhs = ", ".join(e.render() if e.t is t else f"tack.{t.name}({e.render()})"
                        for e, t in zip(self.exprs, self.types))
        return [f"{ind}{', '.join(self.names)} = {rhs}"]

    def ev(self, env):
        vals = [to_type(e.ev(env), t) for e, t in zip(self.exprs, self.types)]
        for n, v in zip(self.names, vals):
            env.vars[n] = v


class ArrStore(Stmt):
    def __init__(self, arr, t, index, e):
        self.arr, self.t, self.index, self.e = arr, t, index, e

    def render(self, ind):
        return [f"{ind}{self.arr}[{self.index.render()}] = {self.e.render()}"]

    def ev(self, env):
        k = self.index.ev(env).v
        env.arrays[self.arr][k] = to_type(self.e.ev(env), self.t)


class ArrDecl(Stmt):
    def __init__(self, arr, t, size):
        self.arr, self.t, self.size = arr, t, size

    def render(self, ind):
        zero = "0.0" if self.t.is_float else "0"
        return [f"{ind}{self.arr} = tack.local_array(tack.{self.t.name}, {self.size})",
                f"{ind}for {self.arr}_k in range({self.size}):",
                f"{ind}    {self.arr}[{self.arr}_k] = {zero}"]

    def ev(self, env):
        env.arrays[self.arr] = [to_type(V(I32, 0), self.t) for _ in range(self.size)]


class Atomic(Stmt):
    def __init__(self, fn, field, t, slot, e):
        self.fn, self.field, self.t, self.slot, self.e = fn, field, t, slot, e

    def render(self, ind):
        return [f"{ind}tack.{self.fn}({self.field}, {self.slot.render()}, {self.e.render()})"]

    def ev(self, env):
        k = self.slot.ev(env).v
        cur = env.fields[self.field][k].v
        v = to_type(self.e.ev(env), self.t).v
        r = {"atomic_add": lambda: wrap(cur + v, self.t), "atomic_min": lambda: min(cur, v),
             "atomic_max": lambda: max(cur, v)}[self.fn]()
        env.fields[self.field][k] = V(self.t, r)


class If(Stmt):
    def __init__(self, cond, then, orelse):
        self.cond, self.then, self.orelse = cond, then, orelse

    def render(self, ind):
        out = [f"{ind}if {self.cond.render()}:"] + render_block(self.then, ind + "    ")
        if self.orelse:
            out += [f"{ind}else:"] + render_block(self.orelse, ind + "    ")
        return out

    def ev(self, env):
        run_block(self.then if truthy(self.cond.ev(env)) else self.orelse, env)


class For(Stmt):
    def __init__(self, var, lo, hi, body, step=1):
        self.var, self.lo, self.hi, self.body, self.step = var, lo, hi, body, step

    def render(self, ind):
        step = f", {self.step}" if self.step != 1 else ""
        return ([f"{ind}for {self.var} in range({self.lo.render()}, {self.hi.render()}{step}):"]
                + render_block(self.body, ind + "    "))

    def ev(self, env):
        lo, hi = self.lo.ev(env).v, self.hi.ev(env).v
        for k in range(lo, hi, self.step):
            env.vars[self.var] = V(I64, k)
            try:
                run_block(self.body, env)
            except Continue:
                continue
            except Break:
                break


class While(Stmt):
    """`w = 0; while w < bound: w += 1; ...` (the counter moves before any continue)."""

    def __init__(self, var, bound, body):
        self.var, self.bound, self.body = var, bound, body

    def render(self, ind):
        return ([f"{ind}{self.var} = 0", f"{ind}while {self.var} < {self.bound.render()}:",
                 f"{ind}    {self.var} += 1"] + render_block(self.body, ind + "    "))

    def ev(self, env):
        env.vars[self.var] = V(I32, 0)
        while env.vars[self.var].v < self.bound.ev(env).v:
            env.vars[self.var] = V(I32, wrap(env.vars[self.var].v + 1, I32))
            try:
                run_block(self.body, env)
            except Continue:
                continue
            except Break:
                break


class Jump(Stmt):
    def __init__(self, kind):
        self.kind = kind

    def render(self, ind):
        return [f"{ind}{self.kind}"]

    def ev(self, env):
        raise Continue() if self.kind == "continue" else Break()


def render_block(stmts, ind):
    out = []
    for s in stmts:
        out += s.render(ind)
    return out or [f"{ind}pass"]


def run_block(stmts, env):
    for s in stmts:
        s.ev(env)


class Func:
    """A @tack.func: `if cond: return a` then `return b`, both of type `ret`."""

    def __init__(self, name, params, ret, cond, a, b):
        self.name, self.params, self.ret, self.cond, self.a, self.b = (
            name, params, ret, cond, a, b)

    def render(self):
        ps = ", ".join(f"{self.name}_a{k}" for k in range(len(self.params)))
        return [
            "@tack.func", f"def {self.name}({ps}):",
            f"    if {self.cond.render()}:",
            f"        return tack.{self.ret.name}({self.a.render()})",
            f"    return tack.{self.ret.name}({self.b.render()})", ""]

    def call(self, env, args):
        saved = env.vars
        env.vars = {f"{self.name}_a{k}": a for k, a in enumerate(args)}
        try:
            e = self.a if truthy(self.cond.ev(env)) else self.b
            return to_type(e.ev(env), self.ret)
        finally:
            env.vars = saved


class Env:
    def __init__(self, fields):
        self.fields, self.vars, self.arrays, self.flat = fields, {}, {}, 0


# --- generator --------------------------------------------------------------------------------

INT_OPS = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"]
FLOAT_OPS = ["+", "-", "*", "/"]
CMP_OPS = ["<", "<=", ">", ">=", "==", "!="]


class Program:
    """One kernel: `stmts` inside the parallel loop, outputs and atomics it writes."""

    def __init__(self, name, stmts, outputs, atomics, funcs):
        self.name, self.stmts, self.outputs, self.atomics, self.funcs = (
            name, stmts, outputs, atomics, funcs)


class Batch:
    """Programs sharing inputs, scalar parameters and the parallel loop's shape."""

    def __init__(self, seed, n_programs, features, allow_f64=True):
        self.seed = seed
        self.rng = random.Random(seed)
        rng = self.rng
        self.features = features
        # Drawn either way, so a seed's other choices do not depend on allow_f64 (Metal has no
        # f64: its runs generate f32-only programs).
        self.has_f64 = rng.random() < 0.6 and allow_f64
        self.n = rng.choice([16, 24, 32])
        self.width = rng.choice([4, 8]) if rng.random() < 0.3 else None  # ndrange(n/w, w)
        # range(n), range(start, n), range(start, n, step) or range(start, s_len) (A14)
        self.start = rng.choice([0, 0, 1, 3]) if self.width is None else 0
        self.step = rng.choice([1, 1, 1, 2, 3]) if self.width is None else 1
        self.bound_param = self.width is None and rng.random() < 0.2
        self.size = rng.choice([3, 3, 4, 6])  # statement budget of a program's top block
        self.extra_depth = rng.choice([0, 0, 1, 2])
        self.in_types = [t for t in INTS + FLOATS if self.has_f64 or t is not F64]
        self.inputs = {f"in_{t.name}": t for t in self.in_types}
        self.data = {name: make_data(rng, t, self.n) for name, t in self.inputs.items()}
        big = rng.choice([2**31 + rng.randrange(2**20), -(2**40) - rng.randrange(99)])
        self.scalars = {"s_len": (I32, self.n - rng.choice([0, 0, 1, 5])),
                        "s_int": (literal_type(v := rng.randrange(-300, 300)), v),
                        "s_big": (I64, big),
                        "s_flt": (F64 if self.has_f64 else F32,
                                  float(np.float32(rng.uniform(-4, 4))))}
        self.programs = [ProgramGen(self, f"p{k}").program() for k in range(n_programs)]

    def params(self, prog):
        outs = [o[0] for o in prog.outputs] + [a[0] for a in prog.atomics]
        return list(self.inputs) + list(self.scalars) + outs

    def loop_header(self):
        if self.width is None:
            end = "s_len" if self.bound_param else "in_i32.shape[0]"
            if self.step != 1:
                return f"    for i in range({self.start}, {end}, {self.step}):"
            if self.start:
                return f"    for i in range({self.start}, {end}):"
            return f"    for i in range({end}):"
        return f"    for i, j in tack.ndrange({self.n // self.width}, {self.width}):"

    def render_program(self, prog):
        lines = ["@tack.kernel", f"def {prog.name}({', '.join(self.params(prog))}):",
                 self.loop_header()]
        return lines + render_block(prog.stmts, "        ") + [""]

    def render_fused(self, progs, name="fused"):
        params = list(self.inputs) + list(self.scalars)
        for p in progs:
            params += [o[0] for o in p.outputs] + [a[0] for a in p.atomics]
        lines = ["@tack.kernel", f"def {name}({', '.join(params)}):", self.loop_header()]
        for p in progs:  # a continue of the program ends its one-trip loop, as it would end
            lines.append(f"        for {p.name}_once in range(1):")  # the iteration alone
            lines += render_block(p.stmts, "            ")
        return lines + [""]

    def render_module(self, progs, fused=False):
        lines = ["import tack", ""]
        for p in progs:
            for f in p.funcs:
                lines += f.render()
        if fused:
            lines += self.render_fused(progs)
        else:
            for p in progs:
                lines += self.render_program(p)
        return "\n".join(lines) + "\n"

    def reference(self, prog):
        """Every output of `prog` after running its iterations in order."""
        fields = {k: list(v) for k, v in self.data.items()}
        for name, t, _ in prog.outputs:
            fields[name] = [V(t, t.np(0) if t.is_float else 0) for _ in range(self.n)]
        for name, t, size in prog.atomics:
            fields[name] = [V(t, 0) for _ in range(size)]
        env = Env(fields)
        for s, (t, v) in self.scalars.items():
            env_scalar = V(t, t.np(v) if t.is_float else v)
            fields.setdefault("__scalars__", {})[s] = env_scalar
        end = self.scalars["s_len"][1] if self.bound_param else self.n
        for flat in range(self.start, end, self.step):
            env.flat = flat
            env.vars = dict(fields["__scalars__"])
            env.vars["i"] = V(I64, flat if self.width is None else flat // self.width)
            if self.width is not None:
                env.vars["j"] = V(I64, flat % self.width)
            env.arrays = {}
            try:
                run_block(prog.stmts, env)
            except Continue:
                pass
        return {name: fields[name] for name, _, _ in prog.outputs + prog.atomics}


def make_data(rng, t, n):
    if t.is_float:
        specials = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -7.0, 1e30, -1e-3, 2.0**24 + 1]
        if rng.random() < 0.3:
            specials += [float("inf"), float("-inf"), float("nan")]
        out = []
        for _ in range(n):
            r = rng.random()
            x = (rng.choice(specials) if r < 0.3 else float(rng.randrange(-40, 40)) if r < 0.5
                 else rng.uniform(-100, 100) * 10.0 ** rng.randrange(-3, 4))
            out.append(float(t.np(x)))
        return out
    specials = [0, 1, -1, 2, t.lo, t.hi, t.lo + 1, t.hi - 1, 7, -8, 255, 256, 65535]
    out = []
    for _ in range(n):
        r = rng.random()
        v = (rng.choice(specials) if r < 0.35 else rng.randrange(-20, 20) if r < 0.7
             else rng.randrange(t.lo, t.hi + 1))
        out.append(wrap(v, t))
    return out


class ProgramGen:
    def __init__(self, batch, name):
        self.b, self.name, self.rng = batch, name, batch.rng
        self.locals = {}      # name -> (dtype, exact)
        self.loop_vars = []   # sequential loop variables in scope
        self.arrays = {}      # name -> (dtype, size)
        self.funcs = []
        self.counter = 0
        self.depth_budget = 0
        self.outputs_so_far = []

    def fresh(self, stem):
        self.counter += 1
        return f"{self.name}_{stem}{self.counter}"

    # ---- expressions
    def leaf(self, kind):
        """A value of `kind` ('int' or 'float') needing no further typing checks."""
        rng, b = self.rng, self.b
        choices = []
        want_float = kind == "float"
        for name, t in b.inputs.items():
            if t.is_float == want_float:
                choices.append(lambda name=name, t=t: Load(name, t, self.index(), b.n))
        for name, (t, _) in b.scalars.items():
            if t.is_float == want_float:
                choices.append(lambda name=name, t=t: Name(name, t))
        for name, (t, exact) in self.locals.items():
            if t.is_float == want_float:
                choices += [lambda name=name, t=t, exact=exact: Name(name, t, exact)] * 2
        for name, (t, size) in self.arrays.items():
            if t.is_float == want_float:
                choices.append(lambda name=name, t=t, size=size:
                               ArrLoad(name, t, self.small_index(size), size))
        if not want_float:
            if not self.depth_budget:  # a @tack.func sees its parameters only
                choices.append(lambda: Index(b.width))
            for v in self.loop_vars:
                choices.append(lambda v=v: Name(v, I64))
            choices.append(lambda: self.int_lit())
            if b.width is not None and not self.depth_budget:
                choices.append(lambda: Name(rng.choice(["i", "j"]), I64))
        else:
            choices.append(lambda: Cast(rng.choice(FLOATS if b.has_f64 else [F32]),
                                        Lit(F64, self.float_lit())))
        return rng.choice(choices)()

    def int_lit(self):
        rng = self.rng
        r = rng.random()
        v = (rng.randrange(-9, 10) if r < 0.7 else rng.choice([127, 128, 255, 32767, 65536,
             -(2**31), 2**31 - 1, 2**31, 2**32 + 5, -(2**63), 2**63 + 1]))
        return Lit(literal_type(v), v)

    def float_lit(self):
        return self.rng.choice([0.5, 1.5, -2.25, 0.1, 3.0, 1e-3, 100.0, -0.0, 7.75])

    def index(self):
        rng, b = self.rng, self.b
        r = rng.random()
        if r < 0.7:
            return Index(b.width)
        if r < 0.85:
            return Bin("-", Lit(I32, b.n - 1), Index(b.width), I64)
        return Bin("%", Bin("+", Index(b.width), Lit(I32, rng.randrange(1, 9)), I64),
                   Lit(I32, b.n), I64)

    def small_index(self, size):
        e = self.int_expr(1)
        if e.t is U64:
            e = Cast(I64, e)
        t = promote(e.t, I32)
        return Bin("%", e, Lit(I32, size), t)

    def int_expr(self, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.leaf("int")
        r = rng.random()
        if r < 0.45:
            return self.int_binary(depth)
        if r < 0.52:
            a = self.int_expr(depth - 1)
            if isinstance(a, Lit):  # `-literal` is a literal typed by its full value (B3)
                return Lit(literal_type(-a.v), -a.v) if -(2**63) <= -a.v < 2**64 else a
            return Un(rng.choice(["-", "~"]), a)
        if r < 0.62:
            c = self.condition(depth - 1)
            return Not(Not(c)) if c.t.is_float else c
        if r < 0.7:
            a, b = self.int_expr(depth - 1), self.int_expr(depth - 1)
            if promote(a.t, b.t) is None:
                b = Cast(a.t, b)
            return Ternary(self.condition(depth - 1), a, b)
        if r < 0.8:
            return Cast(rng.choice(INTS), self.int_expr(depth - 1))
        if r < 0.85:  # an exact float brought over to the integers
            return Cast(rng.choice(INTS), self.exact_float(depth - 1))
        if r < 0.92:
            fn = rng.choice(["abs", "min", "max"])
            if fn == "abs":
                a = self.int_expr(depth - 1)
                return Call("abs", [a], a.t)
            args = [self.int_expr(depth - 1) for _ in range(rng.choice([2, 2, 3]))]
            t = args[0].t
            for k, a in enumerate(args[1:], 1):
                p = promote(t, a.t)
                if p is None:
                    args[k] = Cast(t, a)
                else:
                    t = p
            return Call(fn, args, t)
        if r < 0.96 and self.funcs_allowed():
            return self.func_call(depth - 1, "int")
        a = self.int_expr(depth - 1)
        if rng.random() < 0.5:
            return Bin("**", a, Lit(I32, rng.randrange(0, 5)), a.t)
        e = self.int_expr(depth - 1)  # B16: any nonnegative exponent, the full u64 range too
        e = Cast(U64, e) if rng.random() < 0.5 else Bin("%", Cast(I32, e), Lit(I32, 70), I32)
        return Bin("**", a, e, a.t)

    def int_binary(self, depth):
        rng = self.rng
        op = rng.choice(INT_OPS)
        a, b = self.int_expr(depth - 1), self.int_expr(depth - 1)
        if op in ("<<", ">>"):
            return Bin(op, a, b, a.t)
        t = promote(a.t, b.t)
        if t is None:
            b = Cast(a.t, b)
            t = a.t
        return Bin(op, a, b, t)

    def exact_float(self, depth):
        """A float that every backend computes bit-identically."""
        rng = self.rng
        r = rng.random()
        if r < 0.5 or depth <= 0:
            e = self.leaf("float")
            if e.exact:
                return e
            return Cast(rng.choice(FLOATS if self.b.has_f64 else [F32]), self.int_expr(0))
        if r < 0.75:
            return Cast(rng.choice(FLOATS if self.b.has_f64 else [F32]), self.int_expr(depth - 1))
        if r < 0.9:
            a = self.exact_float(depth - 1)
            return Call(rng.choice(["floor", "ceil", "abs"]), [a], a.t)
        a, b = self.exact_float(depth - 1), self.exact_float(depth - 1)
        return Ternary(self.condition(depth - 1), a, b)

    def float_expr(self, depth):
        rng = self.rng
        if depth <= 0 or rng.random() < 0.2:
            return self.leaf("float")
        r = rng.random()
        if r < 0.5:
            op = rng.choice(FLOAT_OPS)
            a = self.float_expr(depth - 1)
            if rng.random() < 0.25:  # a weak literal adopts the other operand's type (B4)
                b = Lit(a.t, self.float_lit())
            else:
                b = self.float_expr(depth - 1)
            pair = (a, b) if rng.random() < 0.5 else (b, a)
            return Bin(op, pair[0], pair[1], promote(a.t, b.t))
        if r < 0.6:
            a, b = self.exact_float(depth - 1), self.exact_float(depth - 1)
            nonzero = Ternary(Cmp(["!="], [b, Lit(b.t, 0.0)]), b, Lit(b.t, 1.5))
            return Bin(rng.choice(["//", "%"]), a, nonzero, promote(a.t, b.t))
        if r < 0.7:
            return Un("-", self.float_expr(depth - 1))
        if r < 0.78:
            a = self.float_expr(depth - 1)
            fn = rng.choice(["abs", "sqrt", "min", "max"])
            if fn in ("abs", "sqrt"):
                return Call(fn, [a], a.t)
            b = self.float_expr(depth - 1)
            return Call(fn, [a, b], promote(a.t, b.t))
        if r < 0.82:
            return Cast(rng.choice(FLOATS if self.b.has_f64 else [F32]), self.float_expr(depth - 1))
        if r < 0.85:  # int / int is f32 (B15); an int with a weak float literal is f32 (B4)
            a = self.int_expr(depth - 1)
            if rng.random() < 0.5:
                return Bin("/", a, self.int_expr(depth - 1), F32)
            return Bin(rng.choice(["*", "+", "-"]), a, Lit(F32, self.float_lit()), F32)
        if r < 0.92:
            return Cast(rng.choice(FLOATS if self.b.has_f64 else [F32]), self.int_expr(depth - 1))
        if r < 0.96 and self.funcs_allowed():
            return self.func_call(depth - 1, "float")
        a, b = self.float_expr(depth - 1), self.float_expr(depth - 1)
        return Ternary(self.condition(depth - 1), a, b)

    def condition(self, depth):
        """An i32 0/1 (or any int) that depends on exact values only."""
        rng = self.rng
        r = rng.random()
        if r < 0.5:
            a, b = self.int_expr(depth), self.int_expr(depth)
            if promote(a.t, b.t) is None:
                b = Cast(a.t, b)
            if rng.random() < 0.15:
                c = self.int_expr(0)
                if promote(b.t, c.t) is None:
                    c = Cast(b.t, c)
                return Cmp([rng.choice(CMP_OPS), rng.choice(CMP_OPS)], [a, b, c])
            return Cmp([rng.choice(CMP_OPS)], [a, b])
        if r < 0.62:
            a, b = self.exact_float(depth), self.exact_float(depth)
            if rng.random() < 0.3:  # `x < 0.1` compares with x's type's nearest 0.1 (B4)
                b = Lit(a.t, self.float_lit())
            return Cmp([rng.choice(CMP_OPS)], [a, b])
        if r < 0.67:  # an integer against an exact float: compared in the float type
            a, b = self.int_expr(depth), self.exact_float(depth)
            return Cmp([rng.choice(CMP_OPS)], [a, b] if rng.random() < 0.5 else [b, a])
        if r < 0.7:  # a float as a condition: nonzero or NaN is true (B21)
            return self.exact_float(depth)
        if r < 0.85 and depth > 0:
            return BoolOp(rng.choice(["and", "or"]), self.condition(depth - 1),
                          self.condition(depth - 1))
        if r < 0.9 and depth > 0:
            return Not(self.condition(depth - 1))
        return self.int_expr(max(depth, 0))

    def funcs_allowed(self):
        return "func" in self.b.features and len(self.funcs) < 2 and self.depth_budget < 1

    def func_call(self, depth, kind):
        rng = self.rng
        name = self.fresh("f")
        n = rng.choice([1, 2])
        ptypes = [rng.choice(INTS + (FLOATS if self.b.has_f64 else [F32])) for _ in range(n)]
        saved = (self.locals, self.loop_vars, self.arrays)
        self.locals = {f"{name}_a{k}": (t, True) for k, t in enumerate(ptypes)}
        self.loop_vars, self.arrays = [], {}
        self.depth_budget += 1
        inputs, scalars = self.b.inputs, self.b.scalars
        self.b.inputs, self.b.scalars = {}, {}  # a func sees its parameters only
        try:
            ret = rng.choice(INTS) if kind == "int" else rng.choice(FLOATS if self.b.has_f64
                                                                    else [F32])
            cond = self.condition(1)
            gen = self.int_expr if kind == "int" else self.float_expr
            fa, fb = gen(2), gen(2)
        finally:
            self.b.inputs, self.b.scalars = inputs, scalars
            self.locals, self.loop_vars, self.arrays = saved
            self.depth_budget -= 1
        func = Func(name, ptypes, ret, cond, fa, fb)
        self.funcs.append(func)
        args = []
        for t in ptypes:
            a = self.float_expr(depth) if t.is_float and rng.random() < 0.5 else (
                self.exact_float(depth) if t.is_float else self.int_expr(depth))
            args.append(Cast(t, a) if a.t is not t else a)
        # Float parameters may hold inexact values; the body's exact-only uses stay exact
        # because the generator saw them as exact locals: keep arguments exact then.
        args = [Cast(t, self.exact_float(depth)) if t.is_float and not a.exact else a
                for a, t in zip(args, ptypes)]
        return FuncCall(func, args)

    # ---- statements
    def program(self):
        rng, b = self.rng, self.b
        stmts = []
        for _ in range(rng.randint(1, 4)):  # every local is assigned before any branch
            kind = "float" if rng.random() < 0.35 else "int"
            t = rng.choice(FLOATS if b.has_f64 else [F32]) if kind == "float" else rng.choice(INTS)
            exact = kind == "int" or rng.random() < 0.5
            name = self.fresh("v")
            e = self.value_for(t, exact, 2)
            stmts.append(Assign(name, t, e))
            self.locals[name] = (t, exact)
        if "array" in b.features and rng.random() < 0.35:
            t = rng.choice(INTS + [F32])
            arr, size = self.fresh("arr"), rng.choice([2, 4, 5])
            stmts.append(ArrDecl(arr, t, size))
            self.arrays[arr] = (t, size)
        outputs, atomics = [], []
        for _ in range(rng.randint(1, 3)):
            t = rng.choice([t for t in INTS + FLOATS if b.has_f64 or t is not F64])
            outputs.append((self.fresh("out"), t, b.n))
        self.outputs_so_far = outputs
        stmts += self.block(b.size, top=True)
        for name, t, _ in outputs:
            if rng.random() < 0.3:
                e = self.int_expr(2) if not t.is_float else self.float_expr(2)
                if promote(t, e.t) is None:
                    e = Cast(t, e)
                ops = ["+", "-", "*"] + (["&", "|", "^"] if not t.is_float else [])
                stmts.append(AugStore(name, t, Index(b.width), rng.choice(ops), e))
            else:
                stmts.append(Store(name, t, Index(b.width), self.value_for(t, False, 3)))
        if "atomic" in b.features and rng.random() < 0.4:
            t = rng.choice([I32, T["u32"]])
            name, size = self.fresh("acc"), rng.choice([1, 4])
            atomics.append((name, t, size))
            slot = Bin("%", Index(b.width), Lit(I32, size), I64)
            stmts.append(Atomic(rng.choice(["atomic_add", "atomic_add", "atomic_min",
                                            "atomic_max"]), name, t, slot, self.int_expr(2)))
        return Program(self.name, stmts, outputs, atomics, self.funcs)

    def value_for(self, t, exact, depth):
        depth += self.b.extra_depth
        """An expression storable into type t (only exact floats become integers)."""
        rng = self.rng
        if not t.is_float:
            return self.int_expr(depth)
        if exact:
            return self.exact_float(depth)
        return self.float_expr(depth) if rng.random() < 0.8 else self.int_expr(depth)

    def block(self, budget, top=False, in_loop=False):
        rng = self.rng
        out = []
        for _ in range(rng.randint(1, max(1, min(budget, 4)))):
            if budget <= 0:
                break
            out.append(self.statement(budget, top, in_loop))
            budget -= 1
        return out

    def statement(self, budget, top, in_loop):
        rng = self.rng
        r = rng.random()
        if r < 0.3 or not self.locals:
            return self.assign()
        if r < 0.5:
            return If(self.condition(1), self.block(budget - 1, top, in_loop),
                      self.block(budget - 1, top, in_loop) if rng.random() < 0.5 else [])
        if r < 0.65 and len(self.loop_vars) < 2:
            var = self.fresh("j")
            lo = self.bound(3)
            hi = Bin("+", lo, self.bound(5), I32) if rng.random() < 0.4 else self.bound(6)
            self.loop_vars.append(var)
            body = self.block(budget - 1, False, True)
            self.loop_vars.pop()
            return For(var, lo, hi, body, rng.choice([1, 1, 1, 2, 3]))
        if r < 0.72 and len(self.loop_vars) < 2:
            var = self.fresh("w")
            body = self.block(budget - 1, False, True)
            return While(var, self.bound(4), body)
        if r < 0.8 and (in_loop or top):
            kind = "continue" if top and not in_loop else rng.choice(["break", "continue"])
            return If(self.condition(1), [Jump(kind)], [])
        if r < 0.83 and self.outputs_so_far:
            name, t, _ = rng.choice(self.outputs_so_far)
            e = self.int_expr(2) if not t.is_float else self.float_expr(2)
            ops = ["+", "-", "*"] + (["&", "|", "^"] if not t.is_float else [])
            if promote(t, e.t) is None:
                e = Cast(t, e)
            return AugStore(name, t, Index(self.b.width), rng.choice(ops), e)
        if r < 0.85 and len(self.locals) >= 2:
            names = rng.sample(list(self.locals), 2)
            types = [self.locals[n][0] for n in names]
            exprs = [Name(names[1], types[1], self.locals[names[1]][1]),
                     Name(names[0], types[0], self.locals[names[0]][1])]
            if any(e.t.is_float and not t.is_float and not e.exact
                   for e, t in zip(exprs, types)) or any(
                       t.is_float and self.locals[n][1] and not e.exact
                       for n, e, t in zip(names, exprs, types)):
                return self.assign()
            return TupleAssign(names, types, exprs)
        if r < 0.88 and self.arrays:
            arr = rng.choice(list(self.arrays))
            t, size = self.arrays[arr]
            return ArrStore(arr, t, self.small_index(size), self.value_for(t, False, 2))
        return self.assign()

    def bound(self, k):
        """A small data-dependent loop bound in [0, k)."""
        e = self.int_expr(1)
        return Bin("%", Cast(I32, e), Lit(I32, k), I32)

    def assign(self):
        rng = self.rng
        name = rng.choice(list(self.locals))
        t, exact = self.locals[name]
        if not t.is_float and rng.random() < 0.4:  # augmented, when the type stays t (B8)
            op = rng.choice(INT_OPS)
            e = self.int_expr(2)
            if op in ("<<", ">>") or promote(t, e.t) is t:
                return Assign(name, t, e, aug=op)
        if t.is_float and not exact and rng.random() < 0.3:
            op = rng.choice(["+", "-", "*"])
            e = self.float_expr(2)
            if promote(t, e.t) is t:
                return Assign(name, t, e, aug=op)
        return Assign(name, t, self.value_for(t, exact, 3))
