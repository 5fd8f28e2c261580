#pragma once
// Metal through the Objective-C runtime's C API, with no SDK and no Objective-C++: libobjc's
// objc_msgSend, cast to each message's exact C signature, sends every message (as tinygrad's
// Metal runtime does from Python), and MTLCreateSystemDefaultDevice comes from the Metal
// framework. Both are dlopen'd through gpu::load_api, so TACK_OBJC_LIBRARY / TACK_METAL_LIBRARY
// can name the emulated device of tests/emulated (a stand-in libobjc + Metal) instead.
//
// Ownership follows Cocoa's rules: objects from alloc/new.../copy are owned (+1) and released
// here; any other returned object is autoreleased, valid until the enclosing autorelease pool
// pops, and retained when kept past it (command buffers). Every call that can autorelease runs
// inside an AutoreleasePool.

#include <cstdint>
#include <string>

#include "runtime/gpu/loader.hpp"

namespace tack::runtime::metal {

using Id = void*;
using Sel = void*;

#define TACK_OBJC_FUNCTIONS(X)                 \
    X(objc_getClass, Id, (const char*))        \
    X(sel_registerName, Sel, (const char*))    \
    X(objc_msgSend, void, (void))              \
    X(objc_autoreleasePoolPush, void*, (void)) \
    X(objc_autoreleasePoolPop, void, (void*))
#define TACK_METAL_FUNCTIONS(X) X(MTLCreateSystemDefaultDevice, Id, (void))

struct ObjcApi {
    TACK_GPU_API(TACK_OBJC_FUNCTIONS, TACK_GPU_NONE)
    static constexpr std::string_view kLibrary = "objc";
};
struct MetalApi {
    TACK_GPU_API(TACK_METAL_FUNCTIONS, TACK_GPU_NONE)
    static constexpr std::string_view kLibrary = "metal";
};

// Every selector the backend sends, registered once (Messages::Messages).
#define TACK_METAL_SELECTORS(X)                                                       \
    X(alloc, "alloc")                                                                 \
    X(init, "init")                                                                   \
    X(retain, "retain")                                                               \
    X(release, "release")                                                             \
    X(respondsToSelector, "respondsToSelector:")                                      \
    X(initWithUTF8String, "initWithUTF8String:")                                      \
    X(UTF8String, "UTF8String")                                                       \
    X(localizedDescription, "localizedDescription")                                   \
    X(name, "name")                                                                   \
    X(newCommandQueue, "newCommandQueue")                                             \
    X(newLibraryWithSource, "newLibraryWithSource:options:error:")                    \
    X(setFastMathEnabled, "setFastMathEnabled:")                                      \
    X(newFunctionWithName, "newFunctionWithName:")                                    \
    X(newComputePipelineState, "newComputePipelineStateWithFunction:error:")          \
    X(maxTotalThreadsPerThreadgroup, "maxTotalThreadsPerThreadgroup")                 \
    X(newBufferWithLength, "newBufferWithLength:options:")                            \
    X(contents, "contents")                                                           \
    X(length, "length")                                                               \
    X(device, "device")                                                               \
    X(gpuAddress, "gpuAddress")                                                       \
    X(commandBuffer, "commandBuffer")                                                 \
    X(computeCommandEncoder, "computeCommandEncoder")                                 \
    X(blitCommandEncoder, "blitCommandEncoder")                                       \
    X(setComputePipelineState, "setComputePipelineState:")                            \
    X(setBuffer, "setBuffer:offset:atIndex:")                                         \
    X(useResource, "useResource:usage:")                                              \
    X(dispatchThreads, "dispatchThreads:threadsPerThreadgroup:")                      \
    X(endEncoding, "endEncoding")                                                     \
    X(commit, "commit")                                                               \
    X(waitUntilCompleted, "waitUntilCompleted")                                       \
    X(status, "status")                                                               \
    X(error, "error")                                                                 \
    X(copyBuffer, "copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:")     \
    X(fillBuffer, "fillBuffer:range:value:")                                          \
    X(copyToTexture,                                                                  \
      "copyFromBuffer:sourceOffset:sourceBytesPerRow:sourceBytesPerImage:sourceSize:" \
      "toTexture:destinationSlice:destinationLevel:destinationOrigin:")               \
    X(setTextureType, "setTextureType:")                                              \
    X(setPixelFormat, "setPixelFormat:")                                              \
    X(setWidth, "setWidth:")                                                          \
    X(setHeight, "setHeight:")                                                        \
    X(setDepth, "setDepth:")                                                          \
    X(setStorageMode, "setStorageMode:")                                              \
    X(setUsage, "setUsage:")                                                          \
    X(newTextureWithDescriptor, "newTextureWithDescriptor:")                          \
    X(gpuResourceID, "gpuResourceID")

// The Metal values Tack passes (MTLResourceOptions, MTLTextureType, MTLPixelFormat, ...), as
// the SDK's headers define them.
inline constexpr unsigned long kStorageModeShared = 0;       // MTLResourceStorageModeShared
inline constexpr unsigned long kTextureStoragePrivate = 2;   // MTLStorageModePrivate
inline constexpr unsigned long kTextureType3D = 7;           // MTLTextureType3D
inline constexpr unsigned long kPixelFormatR32Float = 55;    // MTLPixelFormatR32Float
inline constexpr unsigned long kTextureUsageShaderRead = 1;  // MTLTextureUsageShaderRead
inline constexpr unsigned long kResourceUsageRead = 1;       // MTLResourceUsageRead
inline constexpr unsigned long kResourceUsageWrite = 2;      // MTLResourceUsageWrite
inline constexpr unsigned long kCommandBufferCompleted = 4;  // MTLCommandBufferStatusCompleted
inline constexpr unsigned long kCommandBufferError = 5;      // MTLCommandBufferStatusError

struct Size {  // MTLSize, MTLOrigin
    unsigned long width, height, depth;
};
struct Range {  // NSRange
    unsigned long location, length;
};
struct ResourceId {  // MTLResourceID
    std::uint64_t impl;
};

/// The loaded runtime: its functions, the selectors and classes the backend uses, and typed
/// message sends.
class Messages {
  public:
    /// nullptr with `*why` set when libobjc or Metal is missing.
    static const Messages* get(std::string* why);

    /// [receiver selector args...] with the message's exact signature.
    template <class R = Id, class... A>
    R send(Id receiver, Sel selector, A... args) const {
        using Fn = R (*)(Id, Sel, A...);
        return reinterpret_cast<Fn>(objc_.objc_msgSend)(receiver, selector, args...);
    }

    Id create_device() const { return metal_.MTLCreateSystemDefaultDevice(); }
    /// [[Class alloc] init] (owned).
    Id make(Id cls) const { return send(send(cls, alloc), init); }
    /// An owned NSString.
    Id string(const std::string& text) const;
    /// The text of an NSString (or "" for nil).
    std::string text(Id string) const;
    /// An NSError's localizedDescription, or `fallback` for nil.
    std::string describe(Id error, const std::string& fallback) const;
    void release_object(Id object) const {
        if (object) send<void>(object, release);
    }
    /// [object respondsToSelector:selector] (NSObject: every Objective-C object answers it).
    bool responds(Id object, Sel selector) const {
        return send<signed char>(object, respondsToSelector, selector) != 0;
    }
    void retain_object(Id object) const {
        if (object) send<Id>(object, retain);
    }
    void* push_pool() const { return objc_.objc_autoreleasePoolPush(); }
    void pop_pool(void* pool) const { objc_.objc_autoreleasePoolPop(pool); }

    Id ns_string = nullptr, compile_options = nullptr, texture_descriptor = nullptr;
#define TACK_METAL_SELECTOR(member, text) Sel member = nullptr;
    TACK_METAL_SELECTORS(TACK_METAL_SELECTOR)
#undef TACK_METAL_SELECTOR

  private:
    Messages(const ObjcApi& objc, const MetalApi& metal);
    const ObjcApi& objc_;
    const MetalApi& metal_;
};

/// An autorelease pool for the scope: what the messages inside it autoreleased is released at
/// its end.
class AutoreleasePool {
  public:
    explicit AutoreleasePool(const Messages& m) : m_(m), pool_(m.push_pool()) {}
    ~AutoreleasePool() { m_.pop_pool(pool_); }
    AutoreleasePool(const AutoreleasePool&) = delete;
    AutoreleasePool& operator=(const AutoreleasePool&) = delete;

  private:
    const Messages& m_;
    void* pool_;
};

}  // namespace tack::runtime::metal
