// `python -m tack` and the wheel's `tackc` script: tools/tackc's command line run in this
// process (its objects are linked into the extension), so a pip-installed Tack has every tackc
// command without a second binary carrying a second copy of LLVM.
#include <cstdio>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "tackc.hpp"

namespace tack::python {

void init_cli(nb::module_& m) {
    m.def(
        "_tackc",
        [](const std::vector<std::string>& args) {
            std::vector<const char*> argv{"tackc"};
            for (const std::string& a : args)
                argv.push_back(a.c_str());
            int status;
            {
                // The commands read files and open devices; none calls back into Python.
                nb::gil_scoped_release released;
                status = tack::tackc::run(static_cast<int>(argv.size()), argv.data());
                std::fflush(stdout);
                std::fflush(stderr);
            }
            return status;
        },
        nb::arg("args"),
        "Runs `tackc ARGS...` in this process and returns its exit status; it writes to the "
        "process's stdout and stderr (flush sys.stdout first).");
}

}  // namespace tack::python
