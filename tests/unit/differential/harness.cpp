#include "harness.hpp"

#include <sstream>

namespace tack::difftest {

namespace {

Array to_device(const HostArray& h, const Device& dev) {
    return with_type(h.dtype, [&](auto tag) {
        using T = decltype(tag);
        std::span<const T> data(h.data<T>(), h.size());
        return Array::from_host(data, Shape(std::span<const std::int64_t>(h.shape)), dev);
    });
}

HostArray to_host(const Array& a, const HostArray& like) {
    HostArray out = like;
    with_type(a.dtype(), [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> v = a.template to_host<T>();
        if (!v.empty()) std::memcpy(out.bytes.data(), v.data(), v.size() * sizeof(T));
        return 0;
    });
    return out;
}

// Floats as integers ordered like the values, so ulp distance is a subtraction.
template <class T, class I>
I ordered(T x) {
    I i;
    std::memcpy(&i, &x, sizeof x);
    return i < 0 ? std::numeric_limits<I>::min() - i : i;
}

template <class T>
std::string compare_float(T got, T want, const Tolerance& tol) {
    using I = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    if (std::isnan(want) || std::isnan(got)) {
        if (!tol.nan_class || (std::isnan(want) && std::isnan(got))) return "";
        return "NaN class differs";
    }
    if (got == 0 && want == 0) {
        return !tol.zero_sign || std::signbit(got) == std::signbit(want) ? "" : "zero sign";
    }
    if (std::isinf(want) || std::isinf(got)) return got == want ? "" : "infinity differs";
    __int128 d = static_cast<__int128>(ordered<T, I>(got)) - ordered<T, I>(want);
    if (d < 0) d = -d;
    return d <= tol.ulp ? "" : std::to_string(static_cast<long long>(d)) + " ulp";
}

template <class T>
std::string show(T v) {
    std::ostringstream s;
    s.precision(std::numeric_limits<T>::max_digits10);
    if constexpr (sizeof(T) == 1)
        s << +v;
    else
        s << v;
    return s.str();
}

}  // namespace

bool opencl_available(std::string* why) {
    try {
        Device saved = default_device();
        device("opencl");
        device(saved.name());
        return true;
    } catch (const std::exception& e) {
        if (why) *why = e.what();
        return false;
    }
}

Kernel kernel(const std::string& source, const char* name) {
    return Module::from_source("import tack\n\n" + source, "diff.py").kernel(name);
}

std::vector<HostArg> run_on(const std::string& name, const Kernel& k,
                            const std::vector<HostArg>& args) {
    Device dev = device(name);
    std::vector<Array> arrays(args.size());
    std::vector<detail::Arg> call(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (const auto* h = std::get_if<HostArray>(&args[i])) {
            arrays[i] = to_device(*h, dev);
            call[i] = detail::Arg{&arrays[i], {}};
        } else {
            call[i] = detail::Arg{nullptr, std::get<Scalar>(args[i])};
        }
    }
    k.call(call);
    std::vector<HostArg> out = args;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (const auto* h = std::get_if<HostArray>(&args[i])) out[i] = to_host(arrays[i], *h);
    device("cpu");
    return out;
}

std::string compare(const HostArray& got, const HostArray& want, const Tolerance& tol) {
    if (got.dtype != want.dtype || got.bytes.size() != want.bytes.size())
        return "dtype or size differs";
    std::string report;
    int shown = 0;
    with_type(got.dtype, [&](auto tag) {
        using T = decltype(tag);
        for (std::size_t i = 0; i < got.size() && shown < 5; ++i) {
            T g = got.data<T>()[i], w = want.data<T>()[i];
            std::string why;
            if constexpr (std::is_floating_point_v<T>)
                why = compare_float(g, w, tol);
            else
                why = g == w ? "" : "differs";
            if (why.empty()) continue;
            report += "  [" + std::to_string(i) + "] got " + show(g) + ", want " + show(w) + " (" +
                      why + ")\n";
            ++shown;
        }
        return 0;
    });
    return report;
}

void check_kernel(const std::string& label, const Kernel& k, const std::vector<HostArg>& args,
                  const Reference& reference, const Tolerance& default_tol,
                  const std::map<std::size_t, Tolerance>& overrides) {
    std::vector<HostArg> want = args;
    reference(want);
    std::vector<HostArg> cpu = run_on("cpu", k, args);
    std::vector<HostArg> cl = run_on("opencl", k, args);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto* w = std::get_if<HostArray>(&want[i]);
        if (!w) continue;
        const auto& c = std::get<HostArray>(cpu[i]);
        const auto& o = std::get<HostArray>(cl[i]);
        auto over = overrides.find(i);
        const Tolerance& tol = over == overrides.end() ? default_tol : over->second;
        std::string a = compare(c, *w, tol), b = compare(o, *w, tol), x = compare(o, c, tol);
        EXPECT_TRUE(a.empty()) << label << ": argument " << i << ", cpu vs reference:\n" << a;
        EXPECT_TRUE(b.empty()) << label << ": argument " << i << ", opencl vs reference:\n" << b;
        EXPECT_TRUE(x.empty()) << label << ": argument " << i << ", opencl vs cpu:\n" << x;
    }
}

}  // namespace tack::difftest
