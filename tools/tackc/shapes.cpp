// tackc --shapes: the extents of a variant's arrays, as text. Kept apart from the commands so
// that its fuzz target (tests/fuzz/fuzz_arguments.cpp) links it without the back ends.
#include <charconv>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"

namespace tack::tackc {
namespace {

// One extent of --shapes: a decimal integer in [0, 2**63 - 1], the whole item.
int64_t parse_extent(const std::string& text, const std::string& all) {
    int64_t v = -1;
    const char* end = text.data() + text.size();
    auto [stop, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || stop != end || v < 0)
        throw std::runtime_error("--shapes '" + all + "': extent '" + text +
                                 "' is not an integer in [0, 2**63 - 1]");
    return v;
}

}  // namespace

// '64;32,32' -> extents per array argument, in order; missing extents default to 1024. Bad
// text names what is wrong (hardening round three, defect 15: "stoll", or silently accepted).
passes::ShapeValues shape_values(const ir::Kernel& k, const std::string& text) {
    std::vector<std::vector<int64_t>> per_array;
    if (!text.empty()) {
        std::stringstream ss(text);
        for (std::string item; std::getline(ss, item, ';');) {
            std::vector<int64_t> dims;
            std::stringstream ds(item);
            for (std::string d; std::getline(ds, d, ',');)
                dims.push_back(parse_extent(d, text));
            if (dims.empty() || item.back() == ',') parse_extent("", text);
            per_array.push_back(dims);
        }
        if (text.back() == ';') parse_extent("", text);
    }
    passes::ShapeValues shapes;
    size_t array_no = 0;
    for (size_t p = 0; p < k.params.size(); ++p) {
        if (!k.params[p].is_array()) continue;
        int rank = k.params[p].buffer->rank;
        if (array_no < per_array.size() && per_array[array_no].size() > size_t(rank))
            throw std::runtime_error("--shapes '" + text + "' gives array '" + k.params[p].name +
                                     "' " + std::to_string(per_array[array_no].size()) +
                                     " extents; it has " + std::to_string(rank) +
                                     (rank == 1 ? " dimension" : " dimensions"));
        for (int d = 0; d < rank; ++d) {
            int64_t extent = 1024;
            if (array_no < per_array.size() && size_t(d) < per_array[array_no].size())
                extent = per_array[array_no][size_t(d)];
            shapes[{static_cast<int>(p), d}] = extent;
        }
        ++array_no;
    }
    if (per_array.size() > array_no)
        throw std::runtime_error("--shapes '" + text + "' gives " +
                                 std::to_string(per_array.size()) + " arrays; the kernel has " +
                                 std::to_string(array_no));
    return shapes;
}

}  // namespace tack::tackc
