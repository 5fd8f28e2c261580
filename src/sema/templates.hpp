#pragma once
// Templates (@tack.data_oriented instances passed to kernels, CONTRACT A23-A26): what a kernel
// sees of one instance. Class constants are compile-time values, instance fields and scalars
// are extra kernel arguments (appended after the declared ones), @tack.func methods and
// function-valued attributes are inlined, nested instances are templates of their own.
//
// A TemplateInfo is interned by its content (class token, member names and kinds, constant
// values with their Python type and bits, argument positions, function identities), so two
// calls with equivalent instances share an id, a signature and their compiled variants, and a
// new instance scalar value never recompiles (D3, D5). A field member's full shape is part of
// the content (D3 tmpl_key), so a field of a new length is a new view, IR template and variant.
//
// Views live as long as their class: when a class object is collected, its views and every view
// holding one are forgotten, and the runtime drops the IR templates and variants built for
// them (D6).

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
        Unusable,  // anything else (a plain method, a string...): an error where a kernel uses it
    };
    std::string name;
    Kind kind = Kind::Constant;
    Constant constant;
    int arg = -1;
    std::vector<int64_t> shape;  // Field: its full shape (element extents innermost)
    FuncRef func;
    int template_id = -1;
    std::string what;  // Unusable: what it is, for the error ("a plain Python method")
};

struct TemplateInfo {
    std::string class_name;
    uint64_t class_token = 0;  // unique per class object (never reused)
    std::vector<TemplateMember> members;
    // `for c in obj` runs over these scalar members (the class's `__tack_iterate__`), fastest
    // first. When the declaration is missing or malformed, `iterate_error` says why; it is
    // reported only where a kernel iterates the object.
    std::vector<std::string> iterate;
    std::string iterate_error;
    const TemplateMember* find(const std::string& name) const;
};

/// The id of `t`'s content (an existing id when an equal TemplateInfo was interned before).
int intern_template(TemplateInfo t);
/// The interned TemplateInfo of `id` (stable for the process).
const TemplateInfo& template_info(int id);
/// Forgets the views of the class `token` and every view that holds one (D6): their ids are
/// never returned by intern_template again. Returns the forgotten ids, for the runtime to drop
/// what it built for them.
std::vector<int> forget_template_class(uint64_t token);

}  // namespace tack::sema
