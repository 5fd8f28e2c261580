#pragma once
// tackc subcommands: each is one function over the remaining arguments, returning the exit status.
#include <string>
#include <vector>

#include "passes/passes.hpp"

namespace tack::tackc {

using Args = std::vector<std::string>;

int cmd_check(const Args& args);
int cmd_inspect(const Args& args);
int cmd_cache(const Args& args);
int cmd_devices(const Args& args);
int cmd_info(const Args& args);

/// `cache info`'s lines (path, status, entries, bytes), each after `indent`.
void print_cache_info(const char* indent);
/// `devices`' lines: each backend, available with its capabilities, or why not.
void print_devices(const char* indent);

/// '64;32,32' -> the extents of each array argument of `k`, in order; missing ones are 1024.
passes::ShapeValues shape_values(const ir::Kernel& k, const std::string& text);

/// Reads a whole file; throws std::runtime_error naming the path on failure.
std::string read_file(const std::string& path);

}  // namespace tack::tackc
