"""Random-program differential tester: every generated kernel runs on every available backend
and against its serial Python reference (programs.py); integer fields must be bit-identical,
float fields within the propagated error bound plus 4 ulp (CONTRACT F4, F5).

    python tests/random_programs/difftest.py --programs 2000 [--seed S] [--batch 10] [--lanes]

The CPU runs each program as its own kernel; other backends run a batch of programs fused
into one kernel (one compile per batch: PoCL spends ~0.2 s per compile). A failing program is
run alone, reduced (statements dropped, expressions shrunk while it still fails the same way)
and printed with its seed. Exit status 1 when any program failed. --lanes runs each program on
the CPU twice, SIMD lanes forced on and off, and requires bit-identical outputs.
"""

import argparse
import copy
import importlib.util
import os
import sys
import tempfile
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs as P  # noqa: E402

import tack  # noqa: E402

FEATURES = {"func", "array", "atomic"}
TMP = tempfile.mkdtemp(prefix="tack-difftest-")
_modules = 0


def load(source):
    global _modules
    _modules += 1
    name = f"tackdiff_{os.getpid()}_{_modules}"
    path = os.path.join(TMP, name + ".py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_args(batch, progs):
    """Fields (inputs, then each program's outputs and atomics) on the active device."""
    args = {}
    for name, t in batch.inputs.items():
        args[name] = tack.field(getattr(tack, t.name), batch.n)
        args[name].from_numpy(np.array(batch.data[name], dtype=t.np))
    for name, (_t, v) in batch.scalars.items():
        args[name] = v
    for p in progs:
        for name, t, size in p.outputs + p.atomics:
            args[name] = tack.field(getattr(tack, t.name), size)
    return args


def compare(name, t, got, want):
    """'' when `got` (NumPy array) matches the reference values, else a description."""
    for k, w in enumerate(want):
        g = got[k]
        if not t.is_float:
            if int(g) != w.v:
                return f"{name}[{k}] = {int(g)}, expected {w.v}"
            continue
        if P.math.isinf(w.e):
            continue  # the error bound is unbounded: nothing to check
        wv = float(w.v)
        gv = float(g)
        if np.isnan(wv) or np.isnan(gv):
            if not (np.isnan(wv) and np.isnan(gv)):
                return f"{name}[{k}] = {gv!r}, expected {wv!r}"
            continue
        if np.isinf(wv) or np.isinf(gv):
            if gv != wv:
                return f"{name}[{k}] = {gv!r}, expected {wv!r}"
            continue
        tol = w.e + 4 * P.ulp(t.np(wv))
        if abs(gv - wv) > tol:
            return f"{name}[{k}] = {gv!r}, expected {wv!r} (tolerance {tol:.3g})"
    return ""


def run_programs(batch, progs, backend, fused):
    """{program name: failure text or ''}. `fused` runs them as one kernel."""
    tack.init(backend)
    result = {}
    try:
        mod = load(batch.render_module(progs, fused))
    except Exception as e:  # a Python SyntaxError in generated code is the generator's bug
        return {p.name: f"generated source does not load: {e}" for p in progs}
    args = make_args(batch, progs)
    calls = [("fused", progs)] if fused else [(p.name, [p]) for p in progs]
    for kname, members in calls:
        kernel = getattr(mod, kname)
        params = list(batch.inputs) + list(batch.scalars)
        for p in members:
            params += [o[0] for o in p.outputs] + [a[0] for a in p.atomics]
        try:
            kernel(*[args[n] for n in params])
        except Exception as e:
            text = f"{type(e).__name__}: {e}"
            for p in members:
                result[p.name] = text
            continue
        for p in members:
            want = batch.reference(p)
            msg = ""
            for name, t, _ in p.outputs + p.atomics:
                msg = compare(name, t, args[name].to_numpy(), want[name])
                if msg:
                    break
            result[p.name] = msg
    return result


def program_params(batch, p):
    return (list(batch.inputs) + list(batch.scalars) + [o[0] for o in p.outputs] +
            [a[0] for a in p.atomics])


def same_bits(t, a, b):
    """Bit-identical arrays; any NaN matches any NaN (x86 picks a NaN operand's payload by
    operand order, which instruction selection may commute)."""
    if not t.is_float:
        return np.array_equal(a, b)
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan].view(np.uint8),
                                                               b[~nan].view(np.uint8))


def lanes_check(batch, progs):
    """{program name: failure text or ''}: each program on the CPU with SIMD lanes forced on
    and off (codegen/llvm/lanes.hpp); the outputs must be bit-identical, and the lane run must
    also match the reference. Float atomics are compared with the reference only: lanes reorder
    the additions of different atomic statements (both orders are valid, CONTRACT B25)."""
    try:
        mod = load(batch.render_module(progs, False))
    except Exception as e:
        return {p.name: f"generated source does not load: {e}" for p in progs}
    runs = {p.name: {} for p in progs}
    for lanes in (False, True):
        os.environ["TACK_CPU_LANES"] = "1" if lanes else "0"  # read by each new CPU backend
        tack.init("cpu")
        args = make_args(batch, progs)
        for p in progs:
            try:
                getattr(mod, p.name)(*[args[n] for n in program_params(batch, p)])
            except Exception as e:
                runs[p.name][lanes] = f"{type(e).__name__}: {e}"
                continue
            runs[p.name][lanes] = {n: args[n].to_numpy() for n, _, _ in p.outputs + p.atomics}
    del os.environ["TACK_CPU_LANES"]
    result = {}
    for p in progs:
        scalar, lanes = runs[p.name][False], runs[p.name][True]
        if isinstance(scalar, str) or isinstance(lanes, str):
            result[p.name] = "" if scalar == lanes else f"scalar: {scalar}; lanes: {lanes}"
            continue
        want = batch.reference(p)
        msg = ""
        for name, t, _ in p.outputs + p.atomics:
            exact = not (t.is_float and (name, t, _) in p.atomics)
            if exact and not same_bits(t, scalar[name], lanes[name]):
                k = int(np.flatnonzero(scalar[name] != lanes[name])[0])
                msg = f"lanes {name}[{k}] = {lanes[name][k]!r}, scalar {scalar[name][k]!r}"
            msg = msg or compare(name, t, lanes[name], want[name])
            if msg:
                break
        result[p.name] = msg
    return result


# --- reduction --------------------------------------------------------------------------------


def children(e):
    out = []
    for attr in ("a", "b", "c"):
        if isinstance(getattr(e, attr, None), P.Expr):
            out.append(getattr(e, attr))
    for attr in ("args", "operands"):
        out += [x for x in getattr(e, attr, []) if isinstance(x, P.Expr)]
    return out


def expr_slots(obj):
    """(holder, attribute or index, expression) for every expression below `obj`."""
    slots = []

    # Indices, loop bounds and atomic slots are never touched: their `% n` keeps accesses in
    # bounds and loops short, and the store index keeps iterations from racing.
    def visit(holder, key, e):
        slots.append((holder, key, e))
        guarded = isinstance(e, P.Bin) and e.op in ("**", "//", "%")  # exponent, divisor
        for attr in ("a", "c", "e", "cond") if guarded else ("a", "b", "c", "e", "cond"):
            sub = getattr(e, attr, None)
            if isinstance(sub, P.Expr):
                visit(e, attr, sub)
        for attr in ("args", "operands"):
            lst = getattr(e, attr, None)
            if isinstance(lst, list):
                for k, sub in enumerate(lst):
                    visit(lst, k, sub)

    def stmt(s):
        for attr in ("e", "cond"):
            sub = getattr(s, attr, None)
            if isinstance(sub, P.Expr):
                visit(s, attr, sub)
        for attr in ("then", "orelse", "body"):
            for sub in getattr(s, attr, []) or []:
                stmt(sub)

    for s in obj:
        stmt(s)
    return slots


def stmt_lists(stmts):
    lists = [stmts]
    for s in stmts:
        for attr in ("then", "orelse", "body"):
            sub = getattr(s, attr, None)
            if sub:
                lists += stmt_lists(sub)
    return lists


def simpler(e):
    """Replacements for `e` with its type and exactness (so the program stays valid)."""
    if isinstance(e, (P.Index, P.Load, P.ArrLoad)):
        return []
    out = [c for c in children(e) if c.t is e.t and (c.exact or not e.exact)]
    if not e.t.is_float and not isinstance(e, P.Lit):
        out.append(P.Lit(e.t, 0) if e.t is P.I32 else P.Cast(e.t, P.Lit(P.I32, 1)))
    return out


def reduce_program(batch, prog, backend, failure_kind, budget_s=120):
    """Greedy delta debugging: drop statements, then replace expressions by a child of the
    same type and exactness or a literal, keeping every change under which the program still
    fails the same way; repeats until nothing changes or the time budget is spent."""
    deadline = time.time() + budget_s

    def fails(p):
        try:
            msg = (lanes_check(batch, [p]) if backend == "cpu-lanes" else
                   run_programs(batch, [p], backend, fused=False))[p.name]
        except Exception:
            return False
        return bool(msg) and msg.split(":")[0].split("[")[0] == failure_kind

    def has_effect(p):
        return any(isinstance(x, (P.Store, P.AugStore, P.Atomic))
                   for lst in stmt_lists(p.stmts) for x in lst)

    cur = prog
    changed = True
    while changed and time.time() < deadline:
        changed = False
        li = 0
        while li < len(stmt_lists(cur.stmts)) and time.time() < deadline:
            k = len(stmt_lists(cur.stmts)[li]) - 1
            while k >= 0 and time.time() < deadline:
                s = stmt_lists(cur.stmts)[li][k]
                keep = isinstance(s, P.ArrDecl) or (li == 0 and isinstance(s, P.Assign) and
                                                    not s.aug and k < 4)
                if not keep:
                    cand = copy.deepcopy(cur)
                    del stmt_lists(cand.stmts)[li][k]
                    if has_effect(cand) and fails(cand):
                        cur, changed = cand, True
                k -= 1
            li += 1
        si = 0
        while si < len(expr_slots(cur.stmts)) and time.time() < deadline:
            _, _, e = expr_slots(cur.stmts)[si]
            for repl in simpler(e):
                cand = copy.deepcopy(cur)
                h2, k2, _ = expr_slots(cand.stmts)[si]
                r2 = copy.deepcopy(repl)
                if isinstance(h2, list):
                    h2[k2] = r2
                else:
                    setattr(h2, k2, r2)
                if fails(cand):
                    cur, changed = cand, True
                    break
            si += 1
    return cur


# --- driver -----------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--backends", default=None, help="comma list (default: every available)")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--lanes", action="store_true",
                    help="the CPU only, SIMD lanes forced on against off: bit-identical outputs")
    ap.add_argument("--self-check-batches", type=int, default=10,
                    help="batches of 10 programs per mutated oracle in --self-check")
    ap.add_argument("--self-check", action="store_true",
                    help="negative control: a reference that wraps only at the stores and one "
                         "that rounds products up must each disagree with the backends")
    args = ap.parse_args()
    if args.self_check:
        return self_check(args)
    backends = (["cpu-lanes"] if args.lanes else args.backends.split(",") if args.backends else
                [b for b in tack._tack._available_backends() if _usable(b)])
    # f64 only where every backend of the run has it (CONTRACT E1: not Metal).
    f64 = all(b == "cpu-lanes" or tack.init(b).supports_f64 for b in backends)
    tack.init(tack.cpu)
    start = time.time()
    ran = 0
    failures = []
    seed = args.seed
    while ran < args.programs:
        n = min(args.batch, args.programs - ran)
        batch = P.Batch(seed, n, FEATURES, f64)
        for backend in backends:
            try:
                res = (lanes_check(batch, batch.programs) if backend == "cpu-lanes" else
                       run_programs(batch, batch.programs, backend, fused=backend != "cpu"))
            except Exception:
                res = {p.name: "harness: " + traceback.format_exc(limit=3)
                       for p in batch.programs}
            for p in batch.programs:
                if res[p.name]:
                    failures.append((seed, backend, p, res[p.name]))
                    print(f"difftest: seed {seed} {p.name} on {backend}: {res[p.name]}",
                          flush=True)
        ran += n
        seed += 1
        if ran % 1000 == 0 and ran < args.programs:
            print(f"difftest: {ran} programs, {len(failures)} failures, "
                  f"{time.time() - start:.0f}s", flush=True)
    elapsed = time.time() - start
    print(f"difftest: {ran} programs x {len(backends)} backends ({', '.join(backends)}), "
          f"seeds {args.seed}..{seed - 1}, {elapsed:.1f}s, {len(failures)} failures")
    seen = set()
    for seed, backend, prog, msg in failures:
        batch = P.Batch(seed, args.batch, FEATURES, f64)
        prog = next(p for p in batch.programs if p.name == prog.name)
        alone = (lanes_check(batch, [prog]) if backend == "cpu-lanes" else
                 run_programs(batch, [prog], backend, fused=False))[prog.name]
        kind = (alone or msg).split(":")[0].split("[")[0]
        print(f"\n=== FAIL seed {seed} program {prog.name} on {backend}: {msg}")
        if not alone:
            print("    (passes when run alone: the fused kernel differs)")
        if args.no_reduce or not alone or (backend, kind) in seen:
            print(batch.render_module([prog]))
            continue
        seen.add((backend, kind))
        small = reduce_program(batch, prog, backend, kind)
        again = (lanes_check(batch, [small]) if backend == "cpu-lanes" else
                 run_programs(batch, [small], backend, False))
        print(f"--- reduced ({again[small.name]}):")
        print(batch.render_module([small]))
    return 1 if failures else 0


def self_check(args):
    """CONTRACT F4's negative controls: the oracle must be able to fail."""
    import warnings

    warnings.filterwarnings("ignore")  # the mutated oracles overflow NumPy scalars
    int_binop, float_binop = P.int_binop, P.float_binop

    def late_wrap(op, a, b, t):  # C-like: truncating // and %, + - * not reduced at the node
        if op in ("+", "-", "*"):
            return {"+": a + b, "-": a - b, "*": a * b}[op]
        if op in ("//", "%") and b != 0:
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return P.wrap(q if op == "//" else a - q * b, t)
        return int_binop(op, a, b, t)

    def drifting(op, a, b, t):  # products one part in 10^4 too large
        r = float_binop(op, a, b, t)
        if op == "*" and np.isfinite(r.v):
            r.v = t.np(r.v * t.np(1.0001))
        return r

    ok = True
    for name, patch in [("int_binop", late_wrap), ("float_binop", drifting)]:
        setattr(P, name, patch)
        caught = 0
        for seed in range(args.seed, args.seed + args.self_check_batches):
            batch = P.Batch(seed, 10, FEATURES)
            try:
                res = run_programs(batch, batch.programs, "cpu", fused=False)
            except Exception:
                res = {"x": "reference failed"}  # a wrapped-late value can break the reference
            caught += sum(1 for m in res.values() if m)
        setattr(P, name, int_binop if name == "int_binop" else float_binop)
        print(f"difftest self-check: mutated {name}: {caught}/{10 * args.self_check_batches}"
              " programs disagree")
        ok &= caught > 0
    return 0 if ok else 1


def _usable(name):
    try:
        tack.init(name)
        return True
    except Exception:
        return False


if __name__ == "__main__":
    sys.exit(main())
