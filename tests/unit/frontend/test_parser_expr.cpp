// Expressions: every kind, and operator precedence/associativity against Python's grammar.

#include <gtest/gtest.h>

#include "frontend_test_util.hpp"

using tack::frontend::test::expr_dump;

TEST(ParserExpr, Atoms) {
    EXPECT_EQ(expr_dump("x"), "Name x\n");
    EXPECT_EQ(expr_dump("42"), "IntLit 42\n");
    EXPECT_EQ(expr_dump("0x2A"), "IntLit 42\n");
    EXPECT_EQ(expr_dump("18446744073709551616"), "IntLit overflow\n");
    EXPECT_EQ(expr_dump("1e-3"), "FloatLit 1e-3 (0.001)\n");
    EXPECT_EQ(expr_dump(".5"), "FloatLit .5 (0.5)\n");
    EXPECT_EQ(expr_dump("'a' \"b\""), "StrLit \"ab\"\n");
    EXPECT_EQ(expr_dump("True"), "BoolLit True\n");
    EXPECT_EQ(expr_dump("False"), "BoolLit False\n");
    EXPECT_EQ(expr_dump("None"), "NoneLit\n");
}

TEST(ParserExpr, RejectedConstantsAreUnsupported) {
    EXPECT_EQ(expr_dump("1j"), "Unsupported Constant\n");
    EXPECT_EQ(expr_dump("b'x'"), "Unsupported Constant\n");
    EXPECT_EQ(expr_dump("..."), "Unsupported Constant\n");
    EXPECT_EQ(expr_dump("f'{x}'"), "Unsupported JoinedStr\n");
    EXPECT_EQ(expr_dump("'a' f'{x}'"), "Unsupported JoinedStr\n");
}

TEST(ParserExpr, UnaryAndPower) {
    // -2**2 == -(2**2): ** binds tighter than unary minus on its left.
    EXPECT_EQ(expr_dump("-2**2"), "Unary Neg\n  Binary Pow\n    IntLit 2\n    IntLit 2\n");
    // ** is right-associative and its right operand may be unary: 2**-1.
    EXPECT_EQ(expr_dump("a**b**c"), "Binary Pow\n  Name a\n  Binary Pow\n    Name b\n    Name c\n");
    EXPECT_EQ(expr_dump("2**-1"), "Binary Pow\n  IntLit 2\n  Unary Neg\n    IntLit 1\n");
    EXPECT_EQ(expr_dump("~+x"), "Unary Invert\n  Unary Pos\n    Name x\n");
    EXPECT_EQ(expr_dump("not not x"), "Unary Not\n  Unary Not\n    Name x\n");
}

TEST(ParserExpr, BinaryPrecedence) {
    EXPECT_EQ(expr_dump("a + b * c"),
              "Binary Add\n  Name a\n  Binary Mul\n    Name b\n    Name c\n");
    EXPECT_EQ(expr_dump("a - b - c"),
              "Binary Sub\n  Binary Sub\n    Name a\n    Name b\n  Name c\n");
    EXPECT_EQ(expr_dump("a / b // c % d @ e"),
              "Binary MatMul\n"
              "  Binary Mod\n"
              "    Binary FloorDiv\n"
              "      Binary Div\n"
              "        Name a\n"
              "        Name b\n"
              "      Name c\n"
              "    Name d\n"
              "  Name e\n");
    // | < ^ < & < shifts < +
    EXPECT_EQ(expr_dump("a | b ^ c & d << e + f"),
              "Binary BitOr\n"
              "  Name a\n"
              "  Binary BitXor\n"
              "    Name b\n"
              "    Binary BitAnd\n"
              "      Name c\n"
              "      Binary LShift\n"
              "        Name d\n"
              "        Binary Add\n"
              "          Name e\n"
              "          Name f\n");
    EXPECT_EQ(expr_dump("a >> b << c"),
              "Binary LShift\n  Binary RShift\n    Name a\n    Name b\n  Name c\n");
    EXPECT_EQ(expr_dump("-a * b"), "Binary Mul\n  Unary Neg\n    Name a\n  Name b\n");
    EXPECT_EQ(expr_dump("(a + b) * c"),
              "Binary Mul\n  Binary Add\n    Name a\n    Name b\n  Name c\n");
}

TEST(ParserExpr, ComparisonChains) {
    EXPECT_EQ(expr_dump("a < b <= c"), "Compare Lt LtE\n  Name a\n  Name b\n  Name c\n");
    EXPECT_EQ(expr_dump("a == b != c > d >= e"),
              "Compare Eq NotEq Gt GtE\n  Name a\n  Name b\n  Name c\n  Name d\n  Name e\n");
    EXPECT_EQ(expr_dump("a is not b is c"), "Compare IsNot Is\n  Name a\n  Name b\n  Name c\n");
    EXPECT_EQ(expr_dump("a not in b in c"), "Compare NotIn In\n  Name a\n  Name b\n  Name c\n");
    // Arithmetic binds tighter than comparison; `not` looser.
    EXPECT_EQ(
        expr_dump("not a + 1 < b"),
        "Unary Not\n  Compare Lt\n    Binary Add\n      Name a\n      IntLit 1\n    Name b\n");
    EXPECT_EQ(expr_dump("a | b == c"),
              "Compare Eq\n  Binary BitOr\n    Name a\n    Name b\n  Name c\n");
}

TEST(ParserExpr, BooleanOperators) {
    EXPECT_EQ(expr_dump("a or b and c or d"),
              "BoolOp Or\n  Name a\n  BoolOp And\n    Name b\n    Name c\n  Name d\n");
    EXPECT_EQ(expr_dump("a and not b"), "BoolOp And\n  Name a\n  Unary Not\n    Name b\n");
}

TEST(ParserExpr, ConditionalExpression) {
    EXPECT_EQ(expr_dump("a if c else b"), "IfExp\n  Name c\n  Name a\n  Name b\n");
    // Right-nested: a if c else (b if d else e); `or` binds tighter than `if`.
    EXPECT_EQ(expr_dump("a or x if c else b if d else e"),
              "IfExp\n"
              "  Name c\n"
              "  BoolOp Or\n"
              "    Name a\n"
              "    Name x\n"
              "  IfExp\n"
              "    Name d\n"
              "    Name b\n"
              "    Name e\n");
}

TEST(ParserExpr, CallsAttributesSubscripts) {
    EXPECT_EQ(expr_dump("f(a, b)"), "Call\n  Name f\n  Name a\n  Name b\n");
    EXPECT_EQ(expr_dump("f()"), "Call\n  Name f\n");
    EXPECT_EQ(expr_dump("tack.math.sqrt(x,)"),
              "Call\n  Attribute .sqrt\n    Attribute .math\n      Name tack\n  Name x\n");
    EXPECT_EQ(expr_dump("f(a, k=1, **kw)"),
              "Call\n  Name f\n  Name a\n  keyword k\n    IntLit 1\n  keyword **\n    Name kw\n");
    EXPECT_EQ(expr_dump("f(*a)"), "Call\n  Name f\n  Unsupported Starred\n");
    EXPECT_EQ(expr_dump("f(x for x in y)"), "Call\n  Name f\n  Unsupported GeneratorExp\n");
    EXPECT_EQ(expr_dump("x[i]"), "Subscript\n  Name x\n  Name i\n");
    EXPECT_EQ(expr_dump("x[i, j + 1]"),
              "Subscript\n  Name x\n  Name i\n  Binary Add\n    Name j\n    IntLit 1\n");
    EXPECT_EQ(expr_dump("x[(i, j)]"), "Subscript\n  Name x\n  Name i\n  Name j\n");
    EXPECT_EQ(expr_dump("x.shape[0]"), "Subscript\n  Attribute .shape\n    Name x\n  IntLit 0\n");
    EXPECT_EQ(expr_dump("a[1:2]"), "Subscript\n  Name a\n  Unsupported Slice\n");
    EXPECT_EQ(expr_dump("a[::2, i]"), "Subscript\n  Name a\n  Unsupported Slice\n  Name i\n");
    EXPECT_EQ(expr_dump("a[:]"), "Subscript\n  Name a\n  Unsupported Slice\n");
    EXPECT_EQ(expr_dump("f(x)[0].y"),
              "Attribute .y\n  Subscript\n    Call\n      Name f\n      Name x\n    IntLit 0\n");
}

TEST(ParserExpr, TuplesAndLists) {
    EXPECT_EQ(expr_dump("a, b"), "Tuple\n  Name a\n  Name b\n");
    EXPECT_EQ(expr_dump("(a, b)"), "Tuple\n  Name a\n  Name b\n");
    EXPECT_EQ(expr_dump("(a,)"), "Tuple\n  Name a\n");
    EXPECT_EQ(expr_dump("()"), "Tuple\n");
    EXPECT_EQ(expr_dump("(a)"), "Name a\n");
    EXPECT_EQ(expr_dump("[1, 2,]"), "List\n  IntLit 1\n  IntLit 2\n");
    EXPECT_EQ(expr_dump("[]"), "List\n");
    EXPECT_EQ(expr_dump("((1, 2), (3, 4))"),
              "Tuple\n  Tuple\n    IntLit 1\n    IntLit 2\n  Tuple\n    IntLit 3\n    IntLit 4\n");
    EXPECT_EQ(expr_dump("a, *b"), "Tuple\n  Name a\n  Unsupported Starred\n");
}

TEST(ParserExpr, RejectedExpressionsNameThePythonClass) {
    EXPECT_EQ(expr_dump("lambda x, y=1, *a, **k: x + y"), "Unsupported Lambda\n");
    EXPECT_EQ(expr_dump("lambda: 0"), "Unsupported Lambda\n");
    EXPECT_EQ(expr_dump("[x for x in y if x for z in w]"), "Unsupported ListComp\n");
    EXPECT_EQ(expr_dump("{x for x in y}"), "Unsupported SetComp\n");
    EXPECT_EQ(expr_dump("{k: v for k, v in y}"), "Unsupported DictComp\n");
    EXPECT_EQ(expr_dump("(x for x in y)"), "Unsupported GeneratorExp\n");
    EXPECT_EQ(expr_dump("{}"), "Unsupported Dict\n");
    EXPECT_EQ(expr_dump("{1: 2, **d}"), "Unsupported Dict\n");
    EXPECT_EQ(expr_dump("{1, 2}"), "Unsupported Set\n");
    EXPECT_EQ(expr_dump("(y := 3)"), "Unsupported NamedExpr\n");
    EXPECT_EQ(expr_dump("await f()"), "Unsupported Await\n");
    EXPECT_EQ(expr_dump("(yield x)"), "Unsupported Yield\n");
    EXPECT_EQ(expr_dump("(yield from x)"), "Unsupported YieldFrom\n");
    EXPECT_EQ(expr_dump("[*a]"), "List\n  Unsupported Starred\n");
}

TEST(ParserExpr, RangesAreExact) {
    auto r =
        tack::frontend::test::parse_text("@tack.kernel\ndef k(x):\n    return (a + b) * x[i, 2]\n");
    ASSERT_TRUE(r.errors.empty());
    const auto* ret = r.module.functions[0]->body[0]->as<tack::frontend::Return>();
    EXPECT_EQ(tack::frontend::dump(*ret->value, r.module.file.get()),
              "Binary Mul @3:12-3:29\n"
              "  Binary Add @3:13-3:18\n"
              "    Name a @3:13-3:14\n"
              "    Name b @3:17-3:18\n"
              "  Subscript @3:22-3:29\n"
              "    Name x @3:22-3:23\n"
              "    Name i @3:24-3:25\n"
              "    IntLit 2 @3:27-3:28\n");
}
