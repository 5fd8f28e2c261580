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

    std::vector<Type> parse() {
        std::vector<Type> out;
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
    Type entry() {
        skip_spaces();
        size_t start = pos_;
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
            ++pos_;
        std::string_view word = text_.substr(start, pos_ - start);
        if (word == "tex3d") return Type::texture();
        std::string_view name = word.substr(0, word.find('x'));
        if (name.empty())
            bad_signature(text_, "expected a dtype at offset " + std::to_string(start));
        auto dtype = dtype_from_name(name);
        if (!dtype) bad_signature(text_, "unknown dtype '" + std::string(name) + "'");
        Shape element =
            name.size() < word.size() ? element_shape(word.substr(name.size())) : Shape{};
        skip_spaces();
        if (pos_ < text_.size() && text_[pos_] == '[') return array_dims(*dtype, element);
        return Type::value(*dtype, element);
    }

    // "x3" or "x2x2": the element shape of a vector or matrix field.
    Shape element_shape(std::string_view s) {
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
        return Shape{dims[0], k == 2 ? dims[1] : 0};
    }

    Type array_dims(DType dtype, Shape element) {
        expect('[', "expected '['");
        Type arg = Type::array(dtype, 0, element);
        skip_spaces();
        if (!element.is_scalar() && pos_ < text_.size() && text_[pos_] == ']') {
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

std::vector<Type> parse_arg_types(std::string_view text) {
    return SignatureParser(text).parse();
}

}  // namespace tack::sema
