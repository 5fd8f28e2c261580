// The saxpy example of tack/tack.hpp's header comment, built against an installed Tack.
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <tack/tack.hpp>

int main() {
    const std::string text = R"(import tack

@tack.kernel
def saxpy(x, y, a, n):
    for i in range(n):
        y[i] = a * x[i] + y[i]
)";
    const int n = 1000;
    std::vector<float> v(n);
    for (int i = 0; i < n; ++i)
        v[i] = 0.5f * float(i);

    tack::Device dev = tack::device("cpu");
    tack::Module mod = tack::Module::from_source(text, "k.py");
    tack::Kernel k = mod.kernel("saxpy");
    tack::Array x = tack::Array::from_host(std::span<const float>(v), {n});
    tack::Array y = tack::zeros(tack::f32, {n});
    k(x, y, 2.0f, std::int64_t(n));
    std::vector<float> out = y.to_host<float>();
    tack::sync();

    for (int i = 0; i < n; ++i) {
        float expected = 2.0f * v[i];  // y started at zero; exact in f32 for these values
        if (out[i] != expected) {
            std::fprintf(stderr, "mismatch at %d: %g != %g\n", i, out[i], expected);
            return 1;
        }
    }
    std::printf("saxpy on %s: %d elements ok\n", dev.display_name().c_str(), n);
    return 0;
}
