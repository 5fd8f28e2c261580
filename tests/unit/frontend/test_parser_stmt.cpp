// Statements inside kernels, parameters, and the full dump format with ranges.

#include <gtest/gtest.h>

#include "frontend_test_util.hpp"

using namespace tack::frontend;
using tack::frontend::test::kernel_dump;
using tack::frontend::test::parse_text;

TEST(ParserStmt, Assignments) {
    EXPECT_EQ(kernel_dump("    x = 1\n"), "Assign\n  Name x\n  IntLit 1\n");
    EXPECT_EQ(kernel_dump("    a = b = 2\n"), "Assign\n  Name a\n  Name b\n  IntLit 2\n");
    EXPECT_EQ(kernel_dump("    a, b = b, a\n"),
              "Assign\n  Tuple\n    Name a\n    Name b\n  Tuple\n    Name b\n    Name a\n");
    EXPECT_EQ(kernel_dump("    (a, b) = [c, d]\n"),
              "Assign\n  Tuple\n    Name a\n    Name b\n  List\n    Name c\n    Name d\n");
    EXPECT_EQ(kernel_dump("    x[i], y.z = 1, 2\n"),
              "Assign\n  Tuple\n    Subscript\n      Name x\n      Name i\n    Attribute .z\n"
              "      Name y\n  Tuple\n    IntLit 1\n    IntLit 2\n");
}

TEST(ParserStmt, AugmentedAssignmentAllOperators) {
    const std::pair<const char*, const char*> ops[] = {
        {"+=", "Add"},       {"-=", "Sub"},    {"*=", "Mul"},   {"/=", "Div"},
        {"//=", "FloorDiv"}, {"%=", "Mod"},    {"**=", "Pow"},  {"<<=", "LShift"},
        {">>=", "RShift"},   {"&=", "BitAnd"}, {"|=", "BitOr"}, {"^=", "BitXor"},
        {"@=", "MatMul"},
    };
    for (const auto& [op, name] : ops) {
        EXPECT_EQ(kernel_dump(std::string("    x[i] ") + op + " 2\n"),
                  std::string("AugAssign ") + name +
                      "\n  Subscript\n    Name x\n    Name i\n  IntLit 2\n")
            << op;
    }
}

TEST(ParserStmt, AnnotatedAssignmentIsKept) {
    EXPECT_EQ(kernel_dump("    a: int = 1\n"), "AnnAssign\n  Name a\n  Name int\n  IntLit 1\n");
    EXPECT_EQ(kernel_dump("    a: tack.f32\n"),
              "AnnAssign\n  Name a\n  Attribute .f32\n    Name tack\n");
}

TEST(ParserStmt, IfElifElse) {
    EXPECT_EQ(kernel_dump("    if a:\n        x = 1\n    elif b:\n        pass\n    else:\n"
                          "        x = 2\n"),
              "If\n"
              "  Name a\n"
              "  body\n"
              "    Assign\n"
              "      Name x\n"
              "      IntLit 1\n"
              "  orelse\n"
              "    If\n"
              "      Name b\n"
              "      body\n"
              "        Pass\n"
              "      orelse\n"
              "        Assign\n"
              "          Name x\n"
              "          IntLit 2\n");
    EXPECT_EQ(kernel_dump("    if a: x = 1; y = 2\n"),
              "If\n  Name a\n  body\n    Assign\n      Name x\n      IntLit 1\n"
              "    Assign\n      Name y\n      IntLit 2\n");
}

TEST(ParserStmt, LoopsWithElseBreakContinue) {
    EXPECT_EQ(kernel_dump("    for i, j in tack.ndrange(n, m):\n        continue\n    else:\n"
                          "        break\n"),
              "For\n"
              "  Tuple\n"
              "    Name i\n"
              "    Name j\n"
              "  Call\n"
              "    Attribute .ndrange\n"
              "      Name tack\n"
              "    Name n\n"
              "    Name m\n"
              "  body\n"
              "    Continue\n"
              "  orelse\n"
              "    Break\n");
    EXPECT_EQ(kernel_dump("    while i < n:\n        i += 1\n    else:\n        pass\n"),
              "While\n  Compare Lt\n    Name i\n    Name n\n  body\n    AugAssign Add\n"
              "      Name i\n      IntLit 1\n  orelse\n    Pass\n");
}

TEST(ParserStmt, ReturnForms) {
    EXPECT_EQ(kernel_dump("    return\n"), "Return\n");
    EXPECT_EQ(kernel_dump("    return a, b\n"), "Return\n  Tuple\n    Name a\n    Name b\n");
    EXPECT_EQ(kernel_dump("    return x + 1\n"),
              "Return\n  Binary Add\n    Name x\n    IntLit 1\n");
}

TEST(ParserStmt, DocstringsAndExpressionStatements) {
    EXPECT_EQ(kernel_dump("    \"\"\"Doc\n    string.\"\"\"\n    f(x)\n    x\n"),
              "ExprStmt\n  StrLit \"Doc\\n    string.\"\nExprStmt\n  Call\n    Name f\n"
              "    Name x\nExprStmt\n  Name x\n");
}

TEST(ParserStmt, RejectedStatementsNameThePythonClass) {
    struct Case {
        const char* body;
        const char* what;
    };
    const Case cases[] = {
        {"    import math\n", "Import"},
        {"    from math import sqrt\n", "ImportFrom"},
        {"    assert x > 0, 'msg'\n", "Assert"},
        {"    raise ValueError('x')\n", "Raise"},
        {"    del x\n", "Delete"},
        {"    global g\n", "Global"},
        {"    nonlocal g\n", "Nonlocal"},
        {"    try:\n        x = 1\n    except Exception as e:\n        pass\n    finally:\n"
         "        pass\n",
         "Try"},
        {"    with open(f) as g:\n        pass\n", "With"},
        {"    class C:\n        x = 1\n", "ClassDef"},
        {"    @dataclass\n    class C:\n        x: int\n", "ClassDef"},
        {"    match x:\n        case 1:\n            pass\n", "Match"},
        {"    async for x in y:\n        pass\n", "AsyncFor"},
        {"    async with y:\n        pass\n", "AsyncWith"},
        {"    type X = int\n", "TypeAlias"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(kernel_dump(c.body), std::string("UnsupportedStmt ") + c.what + "\n") << c.body;
    }
    // The statement after a rejected one is still parsed.
    EXPECT_EQ(kernel_dump("    assert x; y = 1\n    try: pass\n    except: pass\n    z = 2\n"),
              "UnsupportedStmt Assert\nAssign\n  Name y\n  IntLit 1\nUnsupportedStmt Try\n"
              "Assign\n  Name z\n  IntLit 2\n");
    // `match` as a plain name.
    EXPECT_EQ(kernel_dump("    match = 1\n    match(x)\n"),
              "Assign\n  Name match\n  IntLit 1\nExprStmt\n  Call\n    Name match\n    Name x\n");
    EXPECT_EQ(kernel_dump("    x = yield\n"), "Assign\n  Name x\n  Unsupported Yield\n");
}

TEST(ParserStmt, NestedDefinitions) {
    EXPECT_EQ(kernel_dump("    def inner(a):\n        return a\n"),
              "FunctionDef inner other\n  params\n    Param a\n  body\n    Return\n      Name a\n");
    EXPECT_EQ(kernel_dump("    @deco\n    async def inner(): pass\n"),
              "FunctionDef inner other async\n  decorators\n    Name deco\n  body\n    Pass\n");
}

TEST(ParserStmt, ParameterForms) {
    auto r = parse_text(
        "@tack.kernel\n"
        "def k(a, b: tack.f32, c=1, /, d=2, *args, e, f=3, **kw) -> int:\n"
        "    pass\n");
    ASSERT_TRUE(r.errors.empty()) << r.errors[0].message;
    const auto& p = r.module.functions.at(0)->params;
    ASSERT_EQ(p.size(), 8u);
    const char* expected[][2] = {
        {"a", "positional-only"}, {"b", "positional-only"}, {"c", "default value"},
        {"d", "default value"},   {"args", "*args"},        {"e", "keyword-only"},
        {"f", "keyword-only"},    {"kw", "**kwargs"},
    };
    for (size_t i = 0; i < p.size(); ++i) {
        EXPECT_EQ(p[i].name, expected[i][0]);
        EXPECT_EQ(p[i].rejected_form, expected[i][1]) << p[i].name;
    }
    EXPECT_TRUE(p[1].annotation != nullptr);
    EXPECT_TRUE(r.module.functions[0]->returns != nullptr);
    auto bare = parse_text("@tack.kernel\ndef k(a, *, b):\n    pass\n");
    ASSERT_EQ(bare.module.functions.at(0)->params.size(), 2u);
    EXPECT_EQ(bare.module.functions[0]->params[0].rejected_form, "");
    EXPECT_EQ(bare.module.functions[0]->params[1].rejected_form, "keyword-only");
}

TEST(ParserStmt, FullDumpWithRanges) {
    auto r = parse_text(
        "import tack\n"
        "\n"
        "@tack.kernel\n"
        "def add(a: tack.template(), b):\n"
        "    for i in range(a.shape[0]):\n"
        "        a[i] += b  # comment\n");
    ASSERT_TRUE(r.errors.empty());
    ASSERT_EQ(r.module.functions.size(), 1u);
    EXPECT_EQ(dump(*r.module.functions[0]),
              "FunctionDef add kernel @4:1-6:18\n"
              "  decorators\n"
              "    Attribute .kernel @3:2-3:13\n"
              "      Name tack @3:2-3:6\n"
              "  params\n"
              "    Param a @4:9-4:27\n"
              "      Call @4:12-4:27\n"
              "        Attribute .template @4:12-4:25\n"
              "          Name tack @4:12-4:16\n"
              "    Param b @4:29-4:30\n"
              "  body\n"
              "    For @5:5-6:18\n"
              "      Name i @5:9-5:10\n"
              "      Call @5:14-5:31\n"
              "        Name range @5:14-5:19\n"
              "        Subscript @5:20-5:30\n"
              "          Attribute .shape @5:20-5:27\n"
              "            Name a @5:20-5:21\n"
              "          IntLit 0 @5:28-5:29\n"
              "      body\n"
              "        AugAssign Add @6:9-6:18\n"
              "          Subscript @6:9-6:13\n"
              "            Name a @6:9-6:10\n"
              "            Name i @6:11-6:12\n"
              "          Name b @6:17-6:18\n");
}

TEST(ParserStmt, RangesMapThroughLineAndColumnOffsets) {
    // A method body dedented by 4 columns that starts on line 10 of the user's file.
    auto file = std::make_shared<tack::diag::SourceFile>(
        "m.py", "@tack.func\ndef f(x):\n    return x\n", 9, 4);
    auto r = parse_module(file);
    ASSERT_EQ(r.module.functions.size(), 1u);
    const auto& ret = *r.module.functions[0]->body[0];
    EXPECT_EQ(file->line_of(ret.range.begin), 12);
    EXPECT_EQ(file->column_of(ret.range.begin), 9);
    EXPECT_EQ(file->column_of(ret.range.end), 17);
}

TEST(ParserStmt, LayoutDetailsInsideKernels) {
    // Comments, blank lines, backslash continuation, brackets spanning lines, tabs.
    EXPECT_EQ(kernel_dump("    # leading comment\n\n    x = 1 + \\\n        2  # trailing\n"
                          "    y = f(a,\n          # inside\n      b)\n"),
              "Assign\n  Name x\n  Binary Add\n    IntLit 1\n    IntLit 2\n"
              "Assign\n  Name y\n  Call\n    Name f\n    Name a\n    Name b\n");
    EXPECT_EQ(kernel_dump("\tif a:\n\t\tb = 1\n\tc = 2\n"),
              "If\n  Name a\n  body\n    Assign\n      Name b\n      IntLit 1\n"
              "Assign\n  Name c\n  IntLit 2\n");
}

TEST(ParserStmt, UnicodeNamesAndColumnsInCodePoints) {
    EXPECT_EQ(kernel_dump("    \xC3\xA9t\xC3\xA9 = \xCE\xB1\n"),
              "Assign\n  Name \xC3\xA9t\xC3\xA9\n  Name \xCE\xB1\n");
    // "    été = α $": the '$' is the 13th code point of its line.
    EXPECT_EQ(tack::frontend::test::first_error(
                  "@tack.kernel\ndef k():\n    \xC3\xA9t\xC3\xA9 = \xCE\xB1 $\n"),
              "3:13: invalid character '$' (U+0024)");
}
