// parse_arg_types: the argument-signature syntax of `tackc --args` ("f32[:],f32[:,:],i32").
//
//   signature := [ entry { "," entry } ]
//   entry     := dtype [ elems ] [ "[" ":" { "," ":" } "]" ]   (1 to 4 colons: the rank)
//   elems     := "x" n [ "x" m ]        a field of n-vectors or n x m matrices: f32x3[:]
//   a vector or matrix field with no dimensions (a 0-d field) is written f32x3[]
//   `tex3d` is a 3-D f32 texture (tack.texture3d)
//
// Spaces are allowed between tokens. dtype is any name dtype_from_name accepts.

#include <cctype>
#include <string>

#include "sema/sema.hpp"

namespace tack::sema {
namespace {

constexpr int kMaxRank = 4;

[[noreturn]] void bad_signature(std::string_view text, const std::string& why) {
    diag::raise(diag::ErrorKind::ValueError,
                "invalid argument signature '" + std::string(text) + "': " + why);
}

class SignatureParser {
  public:
    explicit SignatureParser(std::string_view text) : text_(text) {}

    std::vector<ArgType> parse() {
        std::vector<ArgType> out;
        skip_spaces();
        if (pos_ == text_.size()) return out;
        while (true) {
            out.push_back(entry());
            skip_spaces();
            if (pos_ == text_.size()) return out;
            expect(',', "expected ',' between arguments");
        }
    }

  private:
    ArgType entry() {
        skip_spaces();
        size_t start = pos_;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
            ++pos_;
        std::string_view word = text_.substr(start, pos_ - start);
        if (word == "tex3d") {
            ArgType tex;
            tex.is_array = tex.is_texture = true;
            tex.rank = 3;
            return tex;
        }
        std::string_view name = word.substr(0, word.find('x'));
        if (name.empty())
            bad_signature(text_, "expected a dtype at offset " + std::to_string(start));
        auto dtype = dtype_from_name(name);
        if (!dtype) bad_signature(text_, "unknown dtype '" + std::string(name) + "'");
        ArgType arg;
        arg.dtype = *dtype;
        if (name.size() < word.size()) element_shape(word.substr(name.size()), arg);
        skip_spaces();
        if (pos_ < text_.size() && text_[pos_] == '[') arg = array_dims(arg);
        return arg;
    }

    // "x3" or "x2x2": the element shape of a vector or matrix field.
    void element_shape(std::string_view s, ArgType& arg) {
        int dims[2] = {0, 0};
        int k = 0;
        while (!s.empty()) {
            if (s[0] != 'x' || k == 2)
                bad_signature(text_, "bad element shape '" + std::string(s) + "'");
            s.remove_prefix(1);
            size_t digits = 0;
            while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits])))
                ++digits;
            if (digits == 0 || digits > 2) bad_signature(text_, "bad element shape");
            dims[k++] = std::stoi(std::string(s.substr(0, digits)));
            s.remove_prefix(digits);
        }
        // The limits Python's Vector.field and Matrix.field apply (a 65-vector was accepted).
        if (dims[0] < 1 || (k == 1 && dims[0] > kMaxVectorComponents) ||
            (k == 2 && (dims[0] > kMaxMatrixExtent || dims[1] < 1 || dims[1] > kMaxMatrixExtent)))
            bad_signature(text_, "vectors have 1 to " + std::to_string(kMaxVectorComponents) +
                                     " components, matrices at most 4x4");
        arg.elem_rows = dims[0];
        arg.elem_cols = k == 2 ? dims[1] : 0;
    }

    ArgType array_dims(ArgType arg) {
        expect('[', "expected '['");
        arg.is_array = true;
        skip_spaces();
        if (arg.elem_rank() && pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;  // f32x3[]: a single vector (0-d field)
            return arg;
        }
        while (true) {
            expect(':', "expected ':' for each array dimension");
            ++arg.rank;
            skip_spaces();
            if (pos_ < text_.size() && text_[pos_] == ']') break;
            expect(',', "expected ',' or ']' in array dimensions");
        }
        expect(']', "expected ']'");
        if (arg.rank > kMaxRank)
            bad_signature(text_, "arrays have at most " + std::to_string(kMaxRank) + " dimensions");
        return arg;
    }

    void expect(char c, const char* why) {
        skip_spaces();
        if (pos_ >= text_.size() || text_[pos_] != c)
            bad_signature(text_, std::string(why) + " at offset " + std::to_string(pos_));
        ++pos_;
    }

    void skip_spaces() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
            ++pos_;
    }

    std::string_view text_;
    size_t pos_ = 0;
};

}  // namespace

std::vector<ArgType> parse_arg_types(std::string_view text) {
    return SignatureParser(text).parse();
}

}  // namespace tack::sema
