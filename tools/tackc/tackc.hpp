#pragma once
// The Tack command line as a function: tackc's main() and the Python extension's
// `tack._tack._tackc` (python -m tack, the wheel's tackc script) call it.

namespace tack::tackc {

/// Runs `tackc argv[1] ...` and returns its exit status: 0 success, 1 diagnostics in the kernel
/// source, 2 usage or other errors. Writes to stdout and stderr.
int run(int argc, const char* const* argv);

}  // namespace tack::tackc
