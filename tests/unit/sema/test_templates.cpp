// Interning and forgetting template views (sema/templates.hpp, CONTRACT D3, D5, D6).

#include <gtest/gtest.h>

#include <algorithm>

#include "sema/templates.hpp"

namespace tack::sema {
namespace {

// Tokens far from the ones the Python bindings hand out in this process (they start at 1).
constexpr uint64_t kBase = 0x7ac0'0000'0000ULL;

TemplateInfo view(uint64_t token, const std::string& name, std::vector<TemplateMember> members) {
    TemplateInfo t;
    t.class_name = name;
    t.class_token = token;
    t.members = std::move(members);
    return t;
}

TemplateMember constant(const std::string& name, Constant c) {
    TemplateMember m;
    m.name = name;
    m.kind = TemplateMember::Kind::Constant;
    m.constant = c;
    return m;
}

TemplateMember field(const std::string& name, int arg, std::vector<int64_t> shape) {
    TemplateMember m;
    m.name = name;
    m.kind = TemplateMember::Kind::Field;
    m.arg = arg;
    m.shape = std::move(shape);
    return m;
}

TemplateMember nested(const std::string& name, int id) {
    TemplateMember m;
    m.name = name;
    m.kind = TemplateMember::Kind::Template;
    m.template_id = id;
    return m;
}

TEST(Templates, EqualContentSharesAnIdAndEveryKeyedPartSplitsIt) {
    int a = intern_template(view(kBase + 1, "A", {constant("k", Constant::floating(2.0))}));
    EXPECT_EQ(intern_template(view(kBase + 1, "A", {constant("k", Constant::floating(2.0))})), a);
    // Float constants by their bits (0.0 and -0.0 differ), ints apart from floats.
    EXPECT_NE(intern_template(view(kBase + 1, "A", {constant("k", Constant::floating(-0.0))})),
              intern_template(view(kBase + 1, "A", {constant("k", Constant::floating(0.0))})));
    EXPECT_NE(intern_template(view(kBase + 1, "A", {constant("k", Constant::integer(2))})), a);
    // Another class object with the same content: never shared.
    EXPECT_NE(intern_template(view(kBase + 2, "A", {constant("k", Constant::floating(2.0))})), a);
    // A field's full shape is keyed.
    EXPECT_NE(intern_template(view(kBase + 1, "F", {field("v", 3, {8})})),
              intern_template(view(kBase + 1, "F", {field("v", 3, {16})})));
    // The iteration space too.
    TemplateInfo it = view(kBase + 1, "I", {});
    it.iterate = {"n"};
    EXPECT_NE(intern_template(it), intern_template(view(kBase + 1, "I", {})));
}

TEST(Templates, ForgettingAClassForgetsItsViewsAndTheirHolders) {
    int inner = intern_template(view(kBase + 10, "Inner", {constant("n", Constant::integer(3))}));
    int outer = intern_template(view(kBase + 11, "Outer", {nested("cells", inner)}));
    int outer2 = intern_template(view(kBase + 12, "Outer2", {nested("o", outer)}));
    int other = intern_template(view(kBase + 13, "Other", {}));
    std::vector<int> gone = forget_template_class(kBase + 10);
    std::sort(gone.begin(), gone.end());
    EXPECT_EQ(gone, (std::vector<int>{inner, outer, outer2}));
    // A forgotten view's content interns anew; the survivor keeps its id; a second forget of
    // the same class finds nothing.
    EXPECT_NE(intern_template(view(kBase + 10, "Inner", {constant("n", Constant::integer(3))})),
              inner);
    EXPECT_EQ(intern_template(view(kBase + 13, "Other", {})), other);
    EXPECT_EQ(template_info(inner).class_name, "Inner");  // a husk: the name stays readable
    EXPECT_TRUE(template_info(inner).members.empty());
    std::vector<int> again = forget_template_class(kBase + 11);
    EXPECT_TRUE(again.empty());  // Outer's only view was already forgotten with Inner
}

}  // namespace
}  // namespace tack::sema
