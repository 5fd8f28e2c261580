#pragma once
// Templates (@tack.data_oriented instances passed to kernels, CONTRACT A23-A26): what a kernel
// sees of one instance. Class constants are compile-time values, instance fields and scalars
// are extra kernel arguments (appended after the declared ones), @tack.func methods and
// function-valued attributes are inlined, nested instances are templates of their own.
//
// A TemplateInfo is interned by its content (class token, member names and kinds, constant
// values with their Python type and bits, argument positions, function identities), so two
// calls with equivalent instances share an id, a signature and their compiled variants, and a
// new instance scalar value never recompiles (D3, D5).

#include <cstdint>
#include <string>
#include <vector>

#include "sema/environment.hpp"

namespace tack::sema {

struct TemplateMember {
    enum class Kind {
        Constant,  // a class constant (or an instance value shadowing one): compiled in
        Field,     // an instance field: extra argument `arg`
        Scalar,    // an instance int/float: extra runtime scalar argument `arg`
        Method,    // a @tack.func defined in the class: called with self
        Func,      // a function-valued attribute or static method: called without self
        Template,  // a nested instance: template `template_id`
    };
    std::string name;
    Kind kind = Kind::Constant;
    Constant constant;
    int arg = -1;
    FuncRef func;
    int template_id = -1;
};

struct TemplateInfo {
    std::string class_name;
    uint64_t class_token = 0;  // unique per class object (never reused)
    std::vector<TemplateMember> members;
    const TemplateMember* find(const std::string& name) const;
};

/// The id of `t`'s content (an existing id when an equal TemplateInfo was interned before).
int intern_template(TemplateInfo t);
/// The interned TemplateInfo of `id` (stable for the process).
const TemplateInfo& template_info(int id);

}  // namespace tack::sema
