// Interning of template views (see templates.hpp).
#include "sema/templates.hpp"

#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <utility>

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
                k += "@" + std::to_string(m.arg) + "[";
                for (int64_t n : m.shape)
                    k += std::to_string(n) + ",";
                k += "]";
                break;
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
            case TemplateMember::Kind::Unusable:
                k += "?" + m.what;
                break;
        }
    }
    k += "|iter";
    for (const auto& n : t.iterate)
        k += ":" + n;
    return k + "|" + t.iterate_error;
}

struct Registry {
    std::mutex mutex;
    std::map<std::string, int> ids;
    std::deque<TemplateInfo> infos;  // a deque: references stay valid as it grows
    std::vector<std::string> keys;   // by id; empty once forgotten
};

bool holds_any(const TemplateInfo& t, const std::set<int>& ids) {
    for (const auto& m : t.members) {
        if (m.kind == TemplateMember::Kind::Template && ids.count(m.template_id)) return true;
    }
    return false;
}

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
    r.keys.push_back(key);
    r.ids.emplace(std::move(key), id);
    return id;
}

std::vector<int> forget_template_class(uint64_t token) {
    Registry& r = registry();
    std::vector<TemplateInfo> released;  // destroyed after the lock: members may own Python state
    std::set<int> gone;
    {
        std::lock_guard lock(r.mutex);
        // Ids grow with interning and a view only holds views interned before it, so one pass
        // in id order finds the holders of holders too.
        for (size_t id = 0; id < r.infos.size(); ++id) {
            if (r.keys[id].empty()) continue;
            const TemplateInfo& t = r.infos[id];
            if (t.class_token != token && !holds_any(t, gone)) continue;
            gone.insert(static_cast<int>(id));
            r.ids.erase(r.keys[id]);
            r.keys[id].clear();
            // Nothing reads a forgotten view: no instance of a collected class is in flight.
            TemplateInfo husk;
            husk.class_name = t.class_name;
            husk.class_token = t.class_token;
            released.push_back(std::exchange(r.infos[id], std::move(husk)));
        }
    }
    return {gone.begin(), gone.end()};
}

const TemplateInfo& template_info(int id) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    return r.infos.at(static_cast<size_t>(id));
}

}  // namespace tack::sema
