#include "frontend/ast.hpp"

namespace tack::frontend {

namespace {

constexpr const char* kUnaryNames[] = {"Neg", "Pos", "Invert", "Not"};
constexpr const char* kBinaryNames[] = {"Add",   "Sub",    "Mul",    "Div",    "FloorDiv",
                                        "Mod",   "Pow",    "LShift", "RShift", "BitAnd",
                                        "BitOr", "BitXor", "MatMul"};
constexpr const char* kCompareNames[] = {"Eq",  "NotEq", "Lt",    "LtE", "Gt",
                                         "GtE", "Is",    "IsNot", "In",  "NotIn"};

}  // namespace

const char* to_string(UnaryOp op) {
    return kUnaryNames[static_cast<int>(op)];
}
const char* to_string(BinaryOp op) {
    return kBinaryNames[static_cast<int>(op)];
}
const char* to_string(CompareOp op) {
    return kCompareNames[static_cast<int>(op)];
}

const FunctionDef* Module::find(std::string_view name) const {
    for (const auto& fn : functions) {
        if (fn->name == name) return fn.get();
    }
    return nullptr;
}

}  // namespace tack::frontend
