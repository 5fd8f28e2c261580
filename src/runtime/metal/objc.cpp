#include "runtime/metal/objc.hpp"

namespace tack::runtime::metal {

Messages::Messages(const ObjcApi& objc, const MetalApi& metal) : objc_(objc), metal_(metal) {
#define TACK_METAL_SELECTOR(member, text) member = objc_.sel_registerName(text);
    TACK_METAL_SELECTORS(TACK_METAL_SELECTOR)
#undef TACK_METAL_SELECTOR
    ns_string = objc_.objc_getClass("NSString");
    compile_options = objc_.objc_getClass("MTLCompileOptions");
    texture_descriptor = objc_.objc_getClass("MTLTextureDescriptor");
}

const Messages* Messages::get(std::string* why) {
    // The Metal framework first: loading it loads Foundation, whose classes objc_getClass finds.
    const MetalApi* metal = gpu::load_api<MetalApi>(why);
    if (!metal) return nullptr;
    const ObjcApi* objc = gpu::load_api<ObjcApi>(why);
    if (!objc) return nullptr;
    static const Messages* messages = new Messages(*objc, *metal);  // never unloaded
    if (!messages->ns_string || !messages->compile_options || !messages->texture_descriptor) {
        if (why) *why = "the Objective-C runtime has no NSString / MTLCompileOptions classes";
        return nullptr;
    }
    return messages;
}

Id Messages::string(const std::string& text) const {
    return send(send(ns_string, alloc), initWithUTF8String, text.c_str());
}

std::string Messages::text(Id string) const {
    if (!string) return "";
    const char* s = send<const char*>(string, UTF8String);
    return s ? s : "";
}

std::string Messages::describe(Id error, const std::string& fallback) const {
    if (!error) return fallback;
    std::string s = text(send(error, localizedDescription));
    return s.empty() ? fallback : s;
}

}  // namespace tack::runtime::metal
