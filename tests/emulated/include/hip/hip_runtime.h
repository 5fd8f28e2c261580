// The emulated HIP device's <hip/hip_runtime.h>: the generated HIP C includes it, and on the
// emulated device it is the same header as CUDA's (tack_emu_kernel.h).
#pragma once
#include "tack_emu_kernel.h"
