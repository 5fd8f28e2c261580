#include "driver/errors.hpp"

namespace tack::driver {

void throw_public(const diag::CompileError& error) {
    throw_public(error.first());
}

void throw_public(const diag::Diagnostic& d) {
    ErrorKind kind = d.kind;
    if (d.file) {
        throw CompileError(kind, d.message, d.file->path(), d.line(), d.column(), d.render());
    }
    switch (kind) {
        case ErrorKind::ValueError:
            throw ValueError(d.message);
        case ErrorKind::TypeError:
            throw TypeError(d.message);
        case ErrorKind::NameError:
            throw NameError(d.message);
        case ErrorKind::NotImplemented:
            throw NotImplementedError(d.message);
        case ErrorKind::Index:
            throw IndexError(d.message);
        case ErrorKind::ZeroDivision:
            throw ZeroDivisionError(d.message);
        case ErrorKind::Runtime:
            throw RuntimeError(d.message);
        default:
            throw CompileError(kind, d.message, "", 0, 0, d.render());
    }
}

}  // namespace tack::driver
