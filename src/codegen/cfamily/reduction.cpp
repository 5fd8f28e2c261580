#include "codegen/cfamily/reduction.hpp"

#include <limits>

#include "codegen/cfamily/helpers.hpp"

namespace tack::codegen::cfamily {

namespace {

using detail::fill;
using detail::Helper;

struct OpInfo {
    const char* name;
    float identity;
    bool extremum;  // min/max: combined by the block extremum helper, stored by a CAS loop
    bool is_min;
};

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr OpInfo kOps[] = {
    {"sum", 0.0f, false, false},
    {"min", kInf, true, true},
    {"max", -kInf, true, false},
};

const OpInfo& info(ReduceOp op) {
    return kOps[static_cast<int>(op)];
}

std::string_view tname(const Dialect& d, DType t) {
    return d.type[static_cast<int>(t)];
}

// The emitter's atomic compare-and-swap helpers return early when `v` does not improve on the
// stored value (`!(v < cur)`), which never stores a NaN and ignores zero signs; CONTRACT C17
// needs the combine itself in the loop, so the extrema have this loop instead. It stops as soon
// as the combined word equals the stored one, so a settled result costs one load.
Helper extremum_cas_helper(const Dialect& d, const OpInfo& op, const Helper& combine) {
    std::string name = std::string("tack_reduce_atomic_") + op.name + "_f32";
    std::string text = fill(
        "{H} void {name}({G}float* p, float v) {\n"
        "    {U} old = {load};\n"
        "    for (;;) {\n"
        "        float next = {combine}({old_f}, v);\n"
        "        {U} bits = {next_u};\n"
        "        if (bits == old) return;\n"
        "        {U} prev = {cas};\n"
        "        if (prev == old) return;\n"
        "        old = prev;\n"
        "    }\n"
        "}\n",
        {{"H", d.helper_decl},
         {"name", name},
         {"G", d.global_qual},
         {"U", tname(d, DType::u32)},
         {"load", fill(d.load32, {{"p", "p"}})},
         {"combine", combine.name},
         {"old_f", fill(d.as_f32, {{"x", "old"}})},
         {"next_u", fill(d.as_u32, {{"x", "next"}})},
         {"cas", fill(d.cas32, {{"p", "p"}, {"old", "old"}, {"new", "bits"}})}});
    return {name, text};
}

/// What the kernel needs besides its body: helper texts, and how to combine two values and to
/// fold a group's partial into out[0] (patterns over {a}/{b} and {v}).
struct Plan {
    std::string prelude;
    std::string combine;  // over {a}, {b}
    std::string store;    // statement over {v}
};

Plan plan(const Dialect& d, const OpInfo& op) {
    Plan p;
    std::string_view native_add = d.atomic[static_cast<int>(DType::f32)].add;
    bool cas = op.extremum || native_add.empty();
    if (cas) p.prelude += d.cas_support;
    if (op.extremum) {
        Helper combine = detail::block_extremum_helper(d, op.is_min);
        Helper store = extremum_cas_helper(d, op, combine);
        p.prelude += combine.text + store.text;
        p.combine = combine.name + "({a}, {b})";
        p.store = store.name + "(out, {v});";
    } else if (native_add.empty()) {
        Helper store = detail::atomic_cas_helper(d, detail::AtomicKind::Add, DType::f32);
        p.prelude += store.text;
        p.combine = "{a} + {b}";
        p.store = store.name + "(out, {v});";
    } else {
        p.combine = "{a} + {b}";
        p.store = fill(native_add, {{"p", "out"}, {"v", "{v}"}, {"t", "float"}}) + ";";
    }
    return p;
}

// The 256 is CONTRACT E4's group; the tree halves it down to lane 0.
constexpr std::string_view kKernel =
    "{struct}{K} {entry}({params}) {\n"
    "{unpack}"
    "    {S}float tack_partial[256];\n"
    "    {U64} lane = ({U64}){local_id};\n"
    "    {U64} count = ({U64})__n__;\n"
    "    {U64} step = ({U64})__stride__;\n"
    "    float acc = {identity};\n"
    "    for ({U64} i = ({U64}){group_id} * 256u + lane; i < count; i += step)\n"
    "        acc = {fold};\n"
    "    tack_partial[lane] = acc;\n"
    "    {barrier}\n"
    "    for ({U64} s = 128u; s > 0u; s >>= 1) {\n"
    "        if (lane < s) tack_partial[lane] = {tree};\n"
    "        {barrier}\n"
    "    }\n"
    "    if (lane == 0u) {store}\n"
    "}\n";

std::string param_suffix(const Dialect& d, int index) {
    return fill(d.param_suffix, {{"i", std::to_string(index)}});
}

}  // namespace

std::string array_reduction_entry(ReduceOp op) {
    return std::string("tack_reduce_") + info(op).name + "_f32";
}

float reduction_identity(ReduceOp op) {
    return info(op).identity;
}

std::string array_reduction_source(const Dialect& d, ReduceOp op) {
    const OpInfo& o = info(op);
    Plan p = plan(d, o);
    std::string n_param = fill(d.n_param, {{"i", "2"}});
    // The stride is a second 64-bit count, spelled as the dialect spells __n__.
    std::string stride_param = fill(d.n_param, {{"i", "3"}});
    stride_param.replace(stride_param.find("__n__"), 5, "__stride__");
    std::string builtins = d.builtin_params.empty() ? "" : ", " + std::string(d.builtin_params);
    std::string x = std::string(d.global_qual) + "const float* x";
    std::string out = std::string(d.global_qual) + "float* out";
    std::string structure, params, unpack;
    if (d.argument_buffer.empty()) {
        params = x + param_suffix(d, 0) + ", " + out + param_suffix(d, 1) + ", " + n_param + ", " +
                 stride_param + builtins;
    } else {  // the four words of one argument buffer (Metal)
        std::string name = "tack_args_" + array_reduction_entry(op);
        const std::pair<std::string, const char*> fields[] = {
            {x, "x"}, {out, "out"}, {n_param, "__n__"}, {stride_param, "__stride__"}};
        structure = "struct " + name + " {\n";
        for (const auto& [decl, field] : fields) {
            structure += "    " + decl + ";\n";
            unpack += "    " + decl + " = tack_args." + field + ";\n";
        }
        structure += "};\n";
        params = fill(d.argument_buffer, {{"s", name}}) + builtins;
    }
    std::string body = fill(
        kKernel,
        {{"struct", structure},
         {"K", d.kernel_decl},
         {"entry", array_reduction_entry(op)},
         {"params", params},
         {"unpack", unpack},
         {"S", d.shared_qual},
         {"U64", tname(d, DType::u64)},
         {"local_id", d.local_id},
         {"group_id", d.group_id},
         {"identity", detail::float_literal(d, DType::f32, o.identity)},
         {"fold", fill(p.combine, {{"a", "acc"}, {"b", "x[i]"}})},
         {"barrier", d.barrier},
         {"tree", fill(p.combine, {{"a", "tack_partial[lane]"}, {"b", "tack_partial[lane + s]"}})},
         {"store", fill(p.store, {{"v", "tack_partial[0]"}})}});
    return std::string(d.header) + p.prelude + body;
}

}  // namespace tack::codegen::cfamily
