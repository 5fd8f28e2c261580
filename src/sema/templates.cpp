// Interning of template views (see templates.hpp).
#include "sema/templates.hpp"

#include <cstring>
#include <deque>
#include <map>
#include <mutex>

namespace tack::sema {

namespace {

std::string constant_key(const Constant& c) {
    std::string k = c.dtype ? std::string(name(*c.dtype)) : std::string("-");
    if (c.kind == Constant::Kind::Int)
        return k + ":i" + std::to_string(static_cast<long long>(c.ival));
    uint64_t bits;
    std::memcpy(&bits, &c.fval, 8);  // 0.0 and -0.0 differ; NaN is stable (D3)
    return k + ":f" + std::to_string(bits);
}

std::string content_key(const TemplateInfo& t) {
    std::string k = std::to_string(t.class_token) + "|" + t.class_name;
    for (const auto& m : t.members) {
        k += "|" + m.name + "#" + std::to_string(static_cast<int>(m.kind));
        switch (m.kind) {
            case TemplateMember::Kind::Constant:
                k += constant_key(m.constant);
                break;
            case TemplateMember::Kind::Field:
            case TemplateMember::Kind::Scalar:
                k += "@" + std::to_string(m.arg);
                break;
            case TemplateMember::Kind::Method:
            case TemplateMember::Kind::Func:
                k += "&" + std::to_string(reinterpret_cast<uintptr_t>(m.func.identity()));
                break;
            case TemplateMember::Kind::Template:
                k += "^" + std::to_string(m.template_id);
                break;
        }
    }
    return k;
}

struct Registry {
    std::mutex mutex;
    std::map<std::string, int> ids;
    std::deque<TemplateInfo> infos;  // a deque: references stay valid as it grows
};

Registry& registry() {
    static Registry r;
    return r;
}

}  // namespace

const TemplateMember* TemplateInfo::find(const std::string& name) const {
    for (const auto& m : members) {
        if (m.name == name) return &m;
    }
    return nullptr;
}

int intern_template(TemplateInfo t) {
    Registry& r = registry();
    std::string key = content_key(t);
    std::lock_guard lock(r.mutex);
    auto it = r.ids.find(key);
    if (it != r.ids.end()) return it->second;
    int id = static_cast<int>(r.infos.size());
    r.infos.push_back(std::move(t));
    r.ids.emplace(std::move(key), id);
    return id;
}

const TemplateInfo& template_info(int id) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    return r.infos.at(static_cast<size_t>(id));
}

}  // namespace tack::sema
