#pragma once
// Rejection cases for source validation, each with the exact diagnostics expected, written by
// hand from the contract (CONTRACT A2-A22, DECISIONS G6/G7). Positions are counted by hand in the
// source text. The same cases are the golden files tests/golden/reject/<name>.py.

#include <string>
#include <vector>

#include "test_validate_util.hpp"

namespace tack::sema::testing {

struct RejectCase {
    std::string name;
    std::string source;
    std::vector<std::string> expected;
};

inline const std::string U = "UnsupportedSyntaxError: ";
inline const std::string N = "NameError: ";
inline const std::string T = "TypeError: ";
inline const std::string K = "Kernel 'k': ";

// `header` + line 3 `@tack.kernel`, line 4 `def k(x, out, n):` and `body` from line 5.
inline std::string kernel_def(const std::string& body, const std::string& sig = "(x, out, n)") {
    return "import tack\n\n@tack.kernel\ndef k" + sig + ":\n" + body;
}

// A module whose line 3 starts a @tack.func `f`, then `body` from line 5.
inline std::string func_def(const std::string& sig, const std::string& body) {
    return "import tack\n\n@tack.func\ndef f" + sig + ":\n" + body;
}

inline const std::string kParallel = "    for i in range(out.shape[0]):\n";
inline const std::string kCopy = "        out[i] = x[i]\n";

// A @tack.func `helper(a)` on lines 3-5, then the kernel from line 7 (loop on line 9, body 10).
inline std::string with_helper(const std::string& helper, const std::string& body) {
    return "import tack\n\n" + helper + "\n@tack.kernel\ndef k(x, out, n):\n" + kParallel + body;
}

inline std::vector<RejectCase> reject_cases() {
    std::vector<RejectCase> c;
    auto add = [&](std::string name, std::string source, std::vector<std::string> expected) {
        c.push_back({std::move(name), std::move(source), std::move(expected)});
    };
    // ---- unsupported statements (A5) ----
    add("assert_in_kernel", kernel_with("        assert x[i] > 0\n"),
        {U + K +
         "unsupported Assert at line 6, column 9: kernels cannot raise or catch; test the "
         "condition with `if` and record it in a field, or run under debug mode (TACK_DEBUG=1), "
         "which checks every index and divisor"});
    add("try_statement",
        kernel_with("        try:\n            out[i] = x[i]\n        except Exception:\n"
                    "            out[i] = 0.0\n"),
        {U + K +
         "unsupported Try at line 6, column 9: kernels cannot raise or catch; test the condition "
         "with `if` and record it in a field, or run under debug mode (TACK_DEBUG=1), which checks "
         "every index and divisor"});
    add("with_statement", kernel_with("        with open('f') as fh:\n            out[i] = x[i]\n"),
        {U + K +
         "unsupported With at line 6, column 9: `with` blocks are host code; put it around the "
         "launch"});
    add("raise_statement", kernel_with("        raise ValueError('bad')\n"),
        {U + K +
         "unsupported Raise at line 6, column 9: kernels cannot raise or catch; test the condition "
         "with `if` and record it in a field, or run under debug mode (TACK_DEBUG=1), which checks "
         "every index and divisor"});
    add("import_in_kernel", kernel_with("        import math\n"),
        {U + K +
         "unsupported Import at line 6, column 9: import at module level; kernels read tack, math "
         "and the module's tack.constant names from there"});
    add("from_import_in_kernel", kernel_with("        from math import sqrt\n"),
        {U + K +
         "unsupported ImportFrom at line 6, column 9: import at module level; kernels read tack, "
         "math and the module's tack.constant names from there"});
    add("del_statement", kernel_with("        del x\n"),
        {U + K +
         "unsupported Delete at line 6, column 9: locals need no deletion; remove the statement"});
    add("global_statement", kernel_with("        global counter\n" + kCopy),
        {U + K +
         "unsupported Global at line 6, column 9: kernels cannot assign module globals; write the "
         "result to a field (and read module-level values declared with tack.constant)"});
    add("class_in_kernel", kernel_with("        class Point:\n            pass\n"),
        {U + K +
         "unsupported ClassDef at line 6, column 9: define classes in host code and pass their "
         "data as fields, or pass an object of a @tack.data_oriented class"});
    add("nested_def", kernel_with("        def helper(a):\n            return a\n"),
        {U + K +
         "unsupported FunctionDef at line 6, column 9: define the function at module level with "
         "@tack.func and call it"});
    add("nested_async_def", kernel_with("        async def helper(a):\n            return a\n"),
        {U + K + "unsupported AsyncFunctionDef at line 6, column 9"});
    add("annotated_assignment", kernel_with("        v: float = x[i]\n        out[i] = v\n"),
        {U + K +
         "unsupported AnnAssign at line 6, column 9: write a plain assignment (`v = x[i]`); a "
         "local takes its value's type, and `tack.f32(...)` converts"});
    add("expression_statement", kernel_with("        x[i] + 1\n"),
        {U + K +
         "unsupported Expr at line 6, column 9: expression statements must be supported "
         "function calls"});
    add("bare_name_statement", kernel_with("        x\n"),
        {U + K +
         "unsupported Expr at line 6, column 9: expression statements must be supported "
         "function calls"});
    add("yield_statement", kernel_with("        yield i\n"),
        {U + K +
         "unsupported Yield at line 6, column 9: a kernel writes its results to fields (or returns "
         "one value after its parallel loop); store into a field instead"});
    // ---- unsupported expressions ----
    add("lambda", kernel_with("        f = lambda a: a\n"),
        {U + K +
         "unsupported Lambda at line 6, column 13: define a @tack.func at module level and call "
         "it"});
    add("list_comprehension", kernel_with("        t = [v for v in range(3)]\n"),
        {U + K +
         "unsupported ListComp at line 6, column 13: write the loop out (`for j in range(n):`), "
         "accumulating into a local or a tack.local_array"});
    add("dict_display", kernel_with("        d = {1: 2}\n"),
        {U + K +
         "unsupported Dict at line 6, column 13: kernels have no dicts; use separate locals, a "
         "tack.constant table or an object of a @tack.data_oriented class"});
    add("set_display", kernel_with("        s = {1, 2}\n"),
        {U + K +
         "unsupported Set at line 6, column 13: kernels have no sets; compare with `==` joined "
         "with `or`, or use a tack.constant table"});
    add("generator_expression", kernel_with("        g = (v for v in range(3))\n"),
        {U + K +
         "unsupported GeneratorExp at line 6, column 13: write the loop out (`for j in "
         "range(n):`), accumulating into a local or a tack.local_array"});
    add("fstring_print", kernel_with("        print(f\"v={i}\")\n"),
        {U + K +
         "unsupported JoinedStr at line 6, column 15: print() takes string literals and values "
         "separated by commas (`print(\"x =\", x)`)"});
    add("slice_index", kernel_with("        out[i] = x[1:3]\n"),
        {U + K +
         "unsupported Slice at line 6, column 20: index one element at a time, in a loop (`for j "
         "in range(lo, hi): ... x[j]`)"});
    add("walrus", kernel_with("        if (v := x[i]) > 0:\n            out[i] = x[i]\n"),
        {U + K +
         "unsupported NamedExpr at line 6, column 13: assign the value in a statement of its own "
         "first, then use the name"});
    add("starred_argument", kernel_with("        out[i] = max(x[i], *x)\n"),
        {U + K +
         "unsupported Starred at line 6, column 28: pass each value as its own argument (`f(v[0], "
         "v[1])`)"});
    add("starred_target", kernel_with("        a, *b = x[i], x[i], x[i]\n"),
        {U + K +
         "unsupported Starred at line 6, column 12: pass each value as its own argument (`f(v[0], "
         "v[1])`)"});
    add("keyword_argument", kernel_with("        out[i] = max(x[i], 0.0, key=1)\n"),
        {U + K +
         "unsupported Call at line 6, column 18: keyword arguments and **kwargs are not "
         "supported"});
    add("is_compare", kernel_with("        if x[i] is 0:\n            out[i] = 0.0\n"),
        {U + K +
         "unsupported Is at line 6, column 12: compare values with `==`; kernels have no None and "
         "no object identity"});
    add("is_not_none", kernel_with("        if x[i] is not None:\n            out[i] = 0.0\n"),
        {U + K +
             "unsupported IsNot at line 6, column 12: compare values with `!=`; kernels have no "
             "None and no object identity",
         U + K +
             "unsupported Constant at line 6, column 24: only numeric literals are supported "
             "here"});
    add("in_compare", kernel_with("        if i in x:\n            out[i] = 0.0\n"),
        {U + K +
         "unsupported In at line 6, column 12: compare with `==` against each value, joined with "
         "`or` (`k == 1 or k == 2`)"});
    add("not_in_compare", kernel_with("        if i not in x:\n            out[i] = 0.0\n"),
        {U + K +
         "unsupported NotIn at line 6, column 12: compare with `!=` against each value, joined "
         "with `and` (`k != 1 and k != 2`)"});
    add("none_value", kernel_with("        v = None\n"),
        {U + K +
         "unsupported Constant at line 6, column 13: only numeric literals are supported "
         "here"});
    add("string_value", kernel_with("        v = 'text'\n"),
        {U + K +
         "unsupported Constant at line 6, column 13: only numeric literals are supported "
         "here"});
    add("int_literal_overflow", kernel_with("        out[i] = 18446744073709551616\n"),
        {T + K +
         "integer literal 18446744073709551616 at line 6, column 18 is outside the 64-bit "
         "range [-2**63, 2**64 - 1]"});
    // ---- parameters (A5) ----
    add("varargs_parameter", kernel_def(kParallel + kCopy, "(x, out, *rest)"),
        {U + K +
         "unsupported parameter 'rest' at line 4, column 15: only ordinary positional "
         "parameters are supported (*args)"});
    add("kwargs_parameter", kernel_def(kParallel + kCopy, "(x, out, **opts)"),
        {U + K +
         "unsupported parameter 'opts' at line 4, column 15: only ordinary positional "
         "parameters are supported (**kwargs)"});
    add("keyword_only_parameter", kernel_def(kParallel + kCopy, "(x, *, out)"),
        {U + K +
         "unsupported parameter 'out' at line 4, column 13: only ordinary positional "
         "parameters are supported (keyword-only)"});
    add("positional_only_parameters", kernel_def(kParallel + kCopy, "(x, out, /)"),
        {U + K +
             "unsupported parameter 'x' at line 4, column 7: only ordinary positional "
             "parameters are supported (positional-only)",
         U + K +
             "unsupported parameter 'out' at line 4, column 10: only ordinary positional "
             "parameters are supported (positional-only)"});
    add("default_parameter", kernel_def(kParallel + kCopy, "(x, out, n=4)"),
        {U + K +
         "unsupported parameter 'n' at line 4, column 15: default parameter values are "
         "not supported"});
    // ---- intrinsic use ----
    add("barrier_with_argument", kernel_with("        tack.barrier(1)\n"),
        {U + K + "unsupported Call at line 6, column 9: barrier() takes no arguments"});
    add("thread_id_with_argument", kernel_with("        t = tack.thread_id(0)\n"),
        {U + K + "unsupported Call at line 6, column 13: thread_id() takes no arguments"});
    add("barrier_as_value", kernel_with("        v = tack.barrier()\n"),
        {U + K +
         "unsupported Call at line 6, column 13: barrier() is only supported as a "
         "statement"});
    add("print_as_value", kernel_with("        v = print(x[i])\n"),
        {U + K +
         "unsupported Call at line 6, column 13: print() is only supported as a "
         "statement"});
    add("range_as_value", kernel_with("        r = range(4)\n"),
        {U + K +
         "unsupported Call at line 6, column 13: range() is only supported as the "
         "iterable of a for loop"});
    add("constant_in_kernel", kernel_with("        c = tack.constant(1.0)\n"),
        {U + K +
         "unsupported Call at line 6, column 13: tack.constant() is only supported at "
         "module level"});
    add("sqrt_two_arguments", kernel_with("        out[i] = tack.sqrt(x[i], 2.0)\n"),
        {T + K + "sqrt() at line 6, column 18 takes 1 argument (2 given): sqrt(x)"});
    add("min_one_argument", kernel_with("        out[i] = min(x[i])\n"),
        {T + K +
         "min() at line 6, column 18 takes at least 2 arguments (1 given): "
         "min(a, b, *rest)"});
    add("atomic_two_arguments", kernel_with("        tack.atomic_add(out, i)\n"),
        {T + K +
         "atomic_add() at line 6, column 9 takes 3 arguments (2 given): "
         "atomic_add(field, index, value)"});
    add("range_four_arguments",
        kernel_with("        for j in range(1, 2, 3, 4):\n"
                    "            out[i] = j\n"),
        {T + K +
         "range() at line 6, column 18 takes 1 to 3 arguments (4 given): "
         "range(start, stop=..., step=1)"});
    add("local_array_one_argument", kernel_with("        tmp = tack.local_array(tack.f32)\n"),
        {T + K +
         "local_array() at line 6, column 15 takes 2 arguments (1 given): "
         "local_array(dtype, size)"});
    add("block_sum_in_conditional_arm",
        kernel_with("        v = tack.block_sum(x[i]) if x[i] > 0 else 0.0\n        out[i] = v\n"),
        {U + K +
         "unsupported Call at line 6, column 13: block_sum() must be reached by every "
         "lane of the workgroup; it cannot be in a conditional expression arm, a later "
         "and/or operand or a while condition"});
    add("block_max_in_and",
        kernel_with("        v = x[i] > 0 and tack.block_max(x[i]) > 0\n        out[i] = v\n"),
        {U + K +
         "unsupported Call at line 6, column 26: block_max() must be reached by every "
         "lane of the workgroup; it cannot be in a conditional expression arm, a later "
         "and/or operand or a while condition"});
    add("block_min_in_while_condition",
        kernel_with("        while tack.block_min(x[i]) > 0.0:\n            out[i] = 0.0\n"),
        {U + K +
         "unsupported Call at line 6, column 15: block_min() must be reached by every "
         "lane of the workgroup; it cannot be in a conditional expression arm, a later "
         "and/or operand or a while condition"});
    // ---- loops (A5, A11, A14, A17) ----
    add("for_else",
        kernel_with("        for j in range(3):\n            out[i] = j\n        else:\n"
                    "            out[i] = 0.0\n"),
        {U + K + "unsupported For at line 6, column 9: for-else is not supported"});
    add("while_else",
        kernel_with("        while n > 0:\n            n = n - 1\n        else:\n"
                    "            out[i] = 0.0\n"),
        {U + K + "unsupported While at line 6, column 9: while-else is not supported"});
    add("range_zero_step",
        kernel_with("        for j in range(0, 4, 0):\n            out[i] = j\n"),
        {U + K + "unsupported Constant at line 6, column 30: range() step must be positive"});
    add("range_negative_step",
        kernel_with("        for j in range(4, 0, -1):\n            out[i] = j\n"),
        {U + K + "unsupported UnaryOp at line 6, column 30: range() step must be positive"});
    add("parallel_negative_step", kernel_def("    for i in range(n, 0, -1):\n" + kCopy),
        {U + K + "unsupported UnaryOp at line 5, column 26: range() step must be positive"});
    add("break_parallel_loop", kernel_with("        break\n"),
        {U + K +
         "unsupported Break at line 6, column 9: break from the parallel loop has no "
         "defined execution order"});
    add("break_parallel_loop_in_if", kernel_with("        if x[i] > 0:\n            break\n"),
        {U + K +
         "unsupported Break at line 7, column 13: break from the parallel loop has no "
         "defined execution order"});
    add("break_outside_loop", func_def("(a)", "    break\n"),
        {U + "Device function 'f': unsupported Break at line 5, column 5: break must be inside a "
             "sequential loop"});
    add("continue_outside_loop", func_def("(a)", "    continue\n"),
        {U + "Device function 'f': unsupported Continue at line 5, column 5: continue must be "
             "inside a loop"});
    add("continue_before_parallel_loop", kernel_def("    continue\n" + kParallel + kCopy),
        {U + K + "unsupported Continue at line 5, column 5: continue must be inside a loop"});
    add("for_target_subscript", kernel_with("        for out[0] in range(3):\n            pass\n"),
        {U + K +
         "unsupported Subscript at line 6, column 13: a for loop target must be a name "
         "or a tuple of names"});
    add("no_parallel_loop", kernel_def("    v = x[0]\n"),
        {U + K + "definition at line 4, column 1 " + kNoLoop});
    add("second_parallel_loop",
        kernel_def(kParallel + kCopy + "    for j in range(out.shape[0]):\n        out[j] = 2.0\n"),
        {U + K + "for loop at line 7, column 5 " + kSecondLoop});
    add("parallel_loop_in_if",
        kernel_def(
            "    if n > 0:\n        for i in range(out.shape[0]):\n            out[i] = x[i]\n"),
        {U + K + "for loop at line 6, column 9 " + kSecondLoop});
    add("parallel_loop_in_while",
        kernel_def("    while n > 0:\n        for i in range(4):\n            out[i] = x[i]\n"
                   "        n = n - 1\n"),
        {U + K + "for loop at line 6, column 9 " + kSecondLoop});
    // `for v in x` over a parameter is left to lowering: only the argument tells whether `x` is
    // a template that declares __tack_iterate__ (tests/python/test_template_iteration.py).
    add("parallel_loop_over_element", kernel_def("    for v in x[0]:\n        out[0] = v\n"),
        {U + K +
         "loop iterable 'x[0]' at line 5, column 14 is not range(...) or tack.ndrange(...)"});
    add("sequential_loop_over_zip",
        kernel_with("        for a, b in zip(x, out):\n            out[i] = a\n"),
        {U + K +
         "loop iterable 'zip(x, out)' at line 6, column 21 is not range(...) or "
         "tack.ndrange(...)"});
    // ---- errors that need no argument types (tackc check, issue 12) ----
    add("tuple_as_operand", kernel_with("        out[i] = (1.0, 2.0) * x[i]\n"),
        {U + K +
         "unsupported Tuple at line 6, column 18: a tuple is not a value here (only as an "
         "assignment's or return's value list); write a vector as tack.Vector([...]) or [...]"});
    add("matmul_of_scalar_literals", kernel_with("        out[i] = 1.0 @ 2.0\n"),
        {U + K +
         "unsupported MatMult at line 6, column 18: operator @ multiplies matrices and vectors, "
         "not two scalars; use '*'"});
    add("shape_runtime_index", kernel_with("        out[i] = x.shape[n]\n"),
        {"NotImplementedError: " + K +
         "'x.shape[n]' at line 6, column 18 needs a constant dimension index: an integer "
         "literal or a tack.constant; the shape is resolved when the kernel is compiled"});
    add("range_float_bound",
        kernel_with("        for j in range(0.5):\n            out[i] = x[i]\n"),
        {U + K +
         "unsupported Call at line 6, column 24: range() bounds must be integers, not floats"});
    add("unknown_attribute", kernel_with("        out[i] = x[i].foo\n"),
        {U + K +
         "unsupported Attribute at line 6, column 18: 'foo' is not an attribute of any kernel "
         "value (fields have .shape and .size, vectors .x .y .z .w and methods such as "
         ".norm())"});
    // ---- return (A5, A20, G7) ----
    add("return_in_parallel_loop", kernel_with("        return\n"),
        {U + K + "unsupported Return at line 6, column 9: " + kKernelReturn});
    add("kernel_return_without_annotation", kernel_def(kParallel + kCopy + "    return x[0]\n"),
        {U + K + "unsupported Return at line 7, column 5: " + kReturnAnnotation});
    add("kernel_return_i32_annotation",
        kernel_def(kParallel + kCopy + "    return x[0]\n", "(x, out, n) -> tack.i32"),
        {U + K + "unsupported Return at line 7, column 5: " + kReturnType});
    add("kernel_return_not_last",
        kernel_def(kParallel + kCopy + "    return x[0]\n    v = 1\n", "(x, out, n) -> float"),
        {U + K + "unsupported Return at line 7, column 5: " + kKernelReturn});
    add("kernel_return_reads_loop_local",
        kernel_def(kParallel + "        total = x[i]\n        out[i] = total\n    return total\n",
                   "(x, out, n) -> float"),
        {U + K +
         "the return value reads 'total', which the parallel loop assigns at line 8, column "
         "12; a kernel's return value may read fields, parameters, constants and locals "
         "assigned outside the loop"});
    add("return_in_device_loop",
        func_def("(a)", "    for j in range(3):\n        return a\n    return a\n"),
        {U + "Device function 'f': unsupported Return at line 6, column 9: return inside a loop is "
             "not supported"});
    add("return_in_device_while",
        func_def("(a)", "    while a > 0:\n        return a\n    return a\n"),
        {U + "Device function 'f': unsupported Return at line 6, column 9: return inside a loop is "
             "not supported"});
    // ---- device functions, calls and binding (A20, A22) ----
    add("device_assert", func_def("(a)", "    assert a > 0\n    return a\n"),
        {U + "Device function 'f': unsupported Assert at line 5, column 5: kernels cannot raise or "
             "catch; test the condition with `if` and record it in a field, or run under debug "
             "mode (TACK_DEBUG=1), which checks every index and divisor"});
    add("unreachable_after_return", func_def("(a)", "    return a\n    assert a > 0\n"),
        {U + "Device function 'f': unsupported Assert at line 6, column 5: kernels cannot raise or "
             "catch; test the condition with `if` and record it in a field, or run under debug "
             "mode (TACK_DEBUG=1), which checks every index and divisor"});
    add("device_unbound_name", func_def("(a)", "    return a * scale\n"),
        {N + "Device function 'f': name 'scale' at line 5, column 16 is not defined; " +
         kReadable});
    add("multi_value_to_one_name",
        with_helper("@tack.func\ndef pair(a):\n    return a, a + 1\n",
                    "        v = pair(x[i])\n        out[i] = v\n"),
        {U + K +
         "unsupported Call at line 10, column 13: pair() returns 2 values; unpack them "
         "into one target each (a, b = pair(...))"});
    add("multi_value_in_expression",
        with_helper("@tack.func\ndef pair(a):\n    return a, a + 1\n",
                    "        out[i] = pair(x[i]) + 1.0\n"),
        {U + K +
         "unsupported Call at line 10, column 18: pair() returns 2 values; unpack them "
         "into one target each (a, b = pair(...))"});
    add("unbound_call", kernel_with("        out[i] = foo(x[i])\n"),
        {U + K + "Call 'foo' at line 6, column 18 " + kNotBound});
    add("numpy_call",
        "import tack\nimport numpy as np\n\n@tack.kernel\ndef k(x, out, n):\n" + kParallel +
            "        out[i] = np.sqrt(x[i])\n",
        {U + K + "Call 'np.sqrt' at line 7, column 18 " + kNotBound +
         " (it is bound to 'sqrt' of module 'numpy')"});
    add("numpy_name_shadows_intrinsic",
        "import tack\nfrom numpy import sqrt\n\n@tack.kernel\ndef k(x, out, n):\n" + kParallel +
            "        out[i] = sqrt(x[i])\n",
        {U + K + "Call 'sqrt' at line 7, column 18 " + kNotBound +
         " (it is bound to 'sqrt' of module 'numpy')"});
    add("math_function_not_intrinsic",
        "import tack\nimport math\n\n@tack.kernel\ndef k(x, out, n):\n" + kParallel +
            "        out[i] = math.gamma(x[i])\n",
        {U + K + "Call 'math.gamma' at line 7, column 18 " + kNotBound +
         " (it is bound to 'gamma' of module 'math')"});
    add("tack_host_function", kernel_with("        out[i] = tack.zeros(4)\n"),
        {U + K + "Call 'tack.zeros' at line 6, column 18 " + kNotBound +
         " (it is bound to 'zeros' of module 'tack')"});
    add("parameter_call", kernel_def(kParallel + "        out[i] = fn(x[i])\n", "(fn, x, out)"),
        {U + K + "Call 'fn' at line 6, column 18 " + kNotBound +
         " ('fn' is a parameter or local of the function)"});
    add("local_shadows_intrinsic", kernel_with("        sqrt = 2.0\n        out[i] = sqrt(x[i])\n"),
        {U + K + "Call 'sqrt' at line 7, column 18 " + kNotBound +
         " ('sqrt' is a parameter or local of the function)"});
    add("kernel_calls_kernel",
        "import tack\n\n@tack.kernel\ndef other(x):\n    for i in range(x.shape[0]):\n"
        "        x[i] = 0.0\n\n@tack.kernel\ndef k(x, out, n):\n" +
            kParallel + "        other(x)\n",
        {U + K + "Call 'other' at line 11, column 9 " + kNotBound +
         " (it is bound to the @tack.kernel 'other')"});
    add("recursion_direct", func_def("(a)", "    return f(a - 1)\n"),
        {U + "Device function 'f': Recursive @tack.func call at line 5, column 12: f -> f"});
    add("recursion_mutual",
        func_def("(a)", "    return g(a)\n\n@tack.func\ndef g(a):\n    return f(a)\n"),
        {U + "Device function 'f': Recursive @tack.func call at line 5, column 12: f -> g -> f",
         U + "Device function 'g': Recursive @tack.func call at line 9, column 12: g -> f -> g"});
    add("recursion_through_kernel",
        func_def("(a)",
                 "    if a > 0:\n        return f(a - 1)\n    return a\n\n@tack.kernel\n"
                 "def k(x, out, n):\n" +
                     kParallel + "        out[i] = f(x[i])\n"),
        {U + "Device function 'f': Recursive @tack.func call at line 6, column 16: f -> f"});
    add("func_too_few_arguments",
        with_helper("@tack.func\ndef add(a, b):\n    return a + b\n",
                    "        out[i] = add(x[i])\n"),
        {T + K + "add() at line 10, column 18 takes 2 positional arguments but 1 was given"});
    add("func_too_many_arguments",
        with_helper("@tack.func\ndef add(a, b):\n    return a + b\n",
                    "        out[i] = add(x[i], 1.0, 2.0)\n"),
        {T + K + "add() at line 10, column 18 takes 2 positional arguments but 3 were given"});
    add("func_keyword_argument",
        with_helper("@tack.func\ndef helper(a):\n    return a\n",
                    "        out[i] = helper(a=x[i])\n"),
        {U + K +
             "unsupported Call at line 10, column 18: keyword arguments and **kwargs are not "
             "supported",
         T + K + "helper() at line 10, column 18 takes 1 positional argument but 0 were given"});
    add("func_as_value",
        with_helper("@tack.func\ndef helper(a):\n    return a\n", "        g = helper\n" + kCopy),
        {U + K +
         "@tack.func 'helper' at line 10, column 13 can only be called; device "
         "functions are not values"});
    add("intrinsic_as_value", kernel_with("        g = tack.sqrt\n"),
        {U + K + "intrinsic 'tack.sqrt' at line 6, column 13 can only be called"});
    // ---- names (A6, A7) ----
    add("unbound_name", kernel_with("        out[i] = x[i] * scale\n"),
        {N + K + "name 'scale' at line 6, column 25 is not defined; " + kReadable});
    add("global_not_constant",
        "import tack\n\nSCALE = 2.0\n\n@tack.kernel\ndef k(x, out, n):\n" + kParallel +
            "        out[i] = x[i] * SCALE\n",
        {N + K +
         "name 'SCALE' at line 8, column 25 is bound to a plain Python float (2.0; declare it "
         "as `SCALE = tack.constant(...)` to read it in kernels), which kernels cannot read; " +
         kReadable});
    add("numpy_constant",
        "import tack\nimport numpy as np\n\n@tack.kernel\ndef k(x, out, n):\n" + kParallel +
            "        out[i] = x[i] * np.pi\n",
        {N + K +
         "name 'np.pi' at line 7, column 25 is bound to 'pi' of module 'numpy', which "
         "kernels cannot read; " +
         kReadable});
    add("loop_variable_after_inner_loop",
        kernel_with("        for j in range(3):\n            out[i] = j\n        out[i] = j\n"),
        {N + K + "loop variable 'j' at line 8, column 18 " + kAfterLoop});
    add("loop_variable_after_parallel_loop", kernel_def(kParallel + kCopy + "    last = i\n"),
        {N + K + "loop variable 'i' at line 7, column 12 " + kAfterLoop});
    add("loop_variable_augmented_after_loop",
        kernel_with("        for j in range(3):\n            out[i] = j\n        j += 1\n"),
        {N + K + "loop variable 'j' at line 8, column 9 " + kAfterLoop});
    add("loop_variable_after_branch",
        kernel_with(
            "        if n > 0:\n            for j in range(3):\n                out[i] = j\n"
            "        out[i] = j\n"),
        {N + K + "loop variable 'j' at line 9, column 18 " + kAfterLoop});
    // ---- local and shared arrays (A8) ----
    add("local_array_alias",
        kernel_with("        tmp = tack.local_array(tack.f32, 4)\n        view = tmp\n"
                    "        out[i] = view[0]\n"),
        {U + K +
         "unsupported Assign at line 7, column 9: local and shared arrays are storage, not "
         "values: index 'tmp' or pass it to a @tack.func instead of binding it to 'view'"});
    add("shared_array_alias",
        kernel_with("        smem = tack.shared(tack.f32, 256)\n        view = smem\n"
                    "        out[i] = view[0]\n"),
        {U + K +
         "unsupported Assign at line 7, column 9: local and shared arrays are storage, not "
         "values: index 'smem' or pass it to a @tack.func instead of binding it to "
         "'view'"});
    // ---- effects outside the parallel loop (A12, A40) ----
    add("store_before_loop", kernel_def("    out[0] = 1.0\n" + kParallel + kCopy),
        {U + K + "store at line 5, column 5 " + kOutside});
    add("augmented_store_before_loop", kernel_def("    out[0] += 1.0\n" + kParallel + kCopy),
        {U + K + "store at line 5, column 5 " + kOutside});
    add("atomic_add_before_loop",
        kernel_def("    tack.atomic_add(out, 0, 1.0)\n" + kParallel + kCopy),
        {U + K + "atomic_add() at line 5, column 5 " + kOutside});
    add("atomic_max_before_loop",
        kernel_def("    tack.atomic_max(out, 0, 1.0)\n" + kParallel + kCopy),
        {U + K + "atomic_max() at line 5, column 5 " + kOutside});
    add("print_before_loop", kernel_def("    print(\"start\")\n" + kParallel + kCopy),
        {U + K + "print() at line 5, column 5 " + kOutside});
    add("barrier_before_loop", kernel_def("    tack.barrier()\n" + kParallel + kCopy),
        {U + K + "barrier() at line 5, column 5 " + kOutside});
    add("block_sum_before_loop",
        kernel_def("    total = tack.block_sum(1.0)\n" + kParallel + kCopy),
        {U + K + "block_sum() at line 5, column 5 " + kOutside});
    add("local_array_store_before_loop",
        kernel_def("    tmp = tack.local_array(tack.f32, 2)\n    tmp[0] = 1.0\n" + kParallel +
                   kCopy),
        {U + K + "store at line 6, column 5 " + kOutside});
    add("store_after_loop", kernel_def(kParallel + kCopy + "    out[0] = 1.0\n"),
        {U + K + "store at line 7, column 5 " + kOutside});
    add("store_in_if_before_loop",
        kernel_def("    if n > 0:\n        out[0] = 1.0\n" + kParallel + kCopy),
        {U + K + "store at line 6, column 9 " + kOutside});
    add("store_in_while_before_loop",
        kernel_def("    while n > 0:\n        out[0] = 1.0\n        n = n - 1\n" + kParallel +
                   kCopy),
        {U + K + "store at line 6, column 9 " + kOutside});
    add("inlined_store_before_loop",
        "import tack\n\n@tack.func\ndef store_first(out, v):\n    out[0] = v\n    return v\n\n"
        "@tack.kernel\ndef k(x, out, n):\n    scale = store_first(out, 2.0)\n" +
            kParallel + "        out[i] = x[i] * scale\n",
        {U + "Device function 'store_first' (inlined into kernel 'k'): store at line 5, column 5 " +
         kOutside});
    add("inlined_atomic_before_loop",
        "import tack\n\n@tack.func\ndef bump(counts):\n    tack.atomic_add(counts, 0, 1)\n\n"
        "@tack.kernel\ndef k(x, out, n):\n    bump(out)\n" +
            kParallel + kCopy,
        {U + "Device function 'bump' (inlined into kernel 'k'): atomic_add() at line 5, column 5 " +
         kOutside});
    add("inlined_print_two_levels_after_loop",
        "import tack\n\n@tack.func\ndef inner(out):\n    print(out[0])\n\n@tack.func\n"
        "def outer(out):\n    inner(out)\n\n@tack.kernel\ndef k(x, out, n):\n" +
            kParallel + kCopy + "    outer(out)\n",
        {U + "Device function 'inner' (inlined into kernel 'k'): print() at line 5, column 5 " +
         kOutside});
    // ---- several errors in one kernel: all are reported ----
    add("many_errors",
        kernel_def("    out[0] = 0.0\n" + kParallel +
                   "        assert x[i] >= 0\n        v: float = x[i]\n        out[i] = foo(v)\n"
                   "        break\n"),
        {U + K + "store at line 5, column 5 " + kOutside,
         U + K +
             "unsupported Assert at line 7, column 9: kernels cannot raise or catch; test the "
             "condition with `if` and record it in a field, or run under debug mode "
             "(TACK_DEBUG=1), which checks every index and divisor",
         U + K +
             "unsupported AnnAssign at line 8, column 9: write a plain assignment (`v = x[i]`); a "
             "local takes its value's type, and `tack.f32(...)` converts",
         U + K + "Call 'foo' at line 9, column 18 " + kNotBound,
         U + K +
             "unsupported Break at line 10, column 9: break from the parallel loop has no "
             "defined execution order"});
    return c;
}

}  // namespace tack::sema::testing
