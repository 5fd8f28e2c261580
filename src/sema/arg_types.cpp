// parse_arg_types: the argument-signature syntax of `tackc --args` ("f32[:],f32[:,:],i32").
//
//   signature := [ entry { "," entry } ]
//   entry     := dtype [ "[" ":" { "," ":" } "]" ]      (1 to 4 colons: the array's rank)
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
        std::string_view name = text_.substr(start, pos_ - start);
        if (name.empty())
            bad_signature(text_, "expected a dtype at offset " + std::to_string(start));
        auto dtype = dtype_from_name(name);
        if (!dtype) bad_signature(text_, "unknown dtype '" + std::string(name) + "'");
        ArgType arg;
        arg.dtype = *dtype;
        skip_spaces();
        if (pos_ < text_.size() && text_[pos_] == '[') arg = array_dims(arg);
        return arg;
    }

    ArgType array_dims(ArgType arg) {
        expect('[', "expected '['");
        arg.is_array = true;
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
