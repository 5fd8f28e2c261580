#pragma once
// The linker's build id (ELF NT_GNU_BUILD_ID) of the loaded object that holds an address: the
// identity of the code that generated a cached artifact. Disk-cache keys carry it (beside the Tack
// version, which a rebuild of the same version does not change) so an entry written by another
// build of the compiler, whose generated code may differ, is never loaded.

#include <string>

namespace tack::support {

/// Lowercase hex of the build id of the object (executable or shared library) mapping
/// `address`; "" where there is none (no note, a platform without ELF). Computed once per object
/// and caller: pass the address of a function in the object of interest.
std::string build_id_of(const void* address);

}  // namespace tack::support
