// What the emulated driver (tests/emulated) and the kernels it compiles share: the texture
// object record and the description of a kernel's parameters. Plain C++, no kernel built-ins.
#pragma once

// A texture object is the address of this record (cuTexObjectCreate / hipCreateTextureObject).
struct tack_emu_texture {
    unsigned long long magic;  // kTackEmuTextureMagic while the object lives
    const float* texels;       // (depth, height, width), x fastest
    long long width, height, depth;
    int normalized;  // coordinates in [0, 1] (texel i's centre at (i + 0.5) / N), else texels
};
static const unsigned long long kTackEmuTextureMagic = 0x7461636b74657833ull;  // "tackte x3"

// Per kernel (TACK_EMU_KERNEL): the parameter count, each one's size, which are pointers (the
// driver checks those against its live allocations), and whether the kernel has a barrier.
struct tack_emu_kernel_info {
    unsigned params;
    const unsigned* sizes;
    const unsigned char* pointer;
    int barrier;
};
