// Thread count resolution (CONTRACT E11, C29) and the environment parsing behind it.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "diag/diagnostic.hpp"
#include "runtime/cpu/cpu_info.hpp"
#include "support/env.hpp"

namespace tack::runtime::cpu {
namespace {

// Sets (or unsets, with nullopt) a variable for one test and restores it afterwards.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) {
            ::setenv(name, value->c_str(), 1);
        } else {
            ::unsetenv(name);
        }
    }
    ~ScopedEnv() {
        if (old_) {
            ::setenv(name_, old_->c_str(), 1);
        } else {
            ::unsetenv(name_);
        }
    }

  private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(ThreadCount, PhysicalCoresIsPositive) {
    EXPECT_GE(physical_core_count(), 1);
}

TEST(ThreadCount, UnsetUsesPhysicalCores) {
    ScopedEnv env("TACK_CPU_THREADS", std::nullopt);
    EXPECT_EQ(resolve_thread_count(std::nullopt), physical_core_count());
    ScopedEnv empty("TACK_CPU_THREADS", "");
    EXPECT_EQ(resolve_thread_count(std::nullopt), physical_core_count());
}

TEST(ThreadCount, EnvironmentValues) {
    struct Case {
        const char* text;
        int expected;
    };
    for (auto [text, expected] :
         {Case{"3", 3}, Case{" 7 ", 7}, Case{"+2", 2}, Case{"1", 1}, Case{"0", 1}, Case{"-4", 1},
          Case{"99999999999999999999", max_thread_count()}}) {
        ScopedEnv env("TACK_CPU_THREADS", text);
        EXPECT_EQ(resolve_thread_count(std::nullopt), expected) << "'" << text << "'";
    }
}

TEST(ThreadCount, ExplicitOptionWinsOverEnvironment) {
    ScopedEnv env("TACK_CPU_THREADS", "3");
    EXPECT_EQ(resolve_thread_count(2), 2);
    EXPECT_EQ(resolve_thread_count(0), 1);
    ScopedEnv bad("TACK_CPU_THREADS", "many");
    EXPECT_EQ(resolve_thread_count(5), 5);  // the variable is not read at all
}

// Hardening issue, defect 2: absurd counts used to start threads until the system refused one,
// and the refusal terminated the process. They are clamped (with a warning).
TEST(ThreadCount, AbsurdCountsAreClamped) {
    EXPECT_GE(max_thread_count(), 256);
    EXPECT_EQ(resolve_thread_count(100000), max_thread_count());
    EXPECT_EQ(resolve_thread_count(1 << 30), max_thread_count());
    ScopedEnv env("TACK_CPU_THREADS", "99999999999999999999");
    EXPECT_EQ(resolve_thread_count(std::nullopt), max_thread_count());
}

TEST(ThreadCount, NonIntegerIsValueError) {
    for (const char* text : {"many", "2.5", "3x", " ", "0x10"}) {
        ScopedEnv env("TACK_CPU_THREADS", text);
        try {
            resolve_thread_count(std::nullopt);
            ADD_FAILURE() << "no error for '" << text << "'";
        } catch (const diag::CompileError& e) {
            EXPECT_EQ(e.first().kind, diag::ErrorKind::ValueError);
            EXPECT_EQ(e.first().message,
                      std::string("TACK_CPU_THREADS must be an integer: invalid literal for "
                                  "int() with base 10: '") +
                          text + "'");
        }
    }
}

TEST(Env, PolicyAndMargin) {
    {
        ScopedEnv env("TACK_CPU_POLICY", std::nullopt);
        EXPECT_EQ(support::env_cpu_policy(), support::CpuPolicy::V2);
    }
    {
        ScopedEnv env("TACK_CPU_POLICY", "v1");
        EXPECT_EQ(support::env_cpu_policy(), support::CpuPolicy::V1);
    }
    {
        ScopedEnv env("TACK_CPU_POLICY", "v3");
        EXPECT_THROW(support::env_cpu_policy(), diag::CompileError);
    }
    {
        ScopedEnv env("TACK_CPU_MARGIN", "1.5");
        EXPECT_EQ(support::env_cpu_margin(), 1.5);
    }
    {
        ScopedEnv env("TACK_CPU_MARGIN", "-1");
        EXPECT_THROW(support::env_cpu_margin(), diag::CompileError);
    }
    ScopedEnv env("TACK_CPU_MARGIN", std::nullopt);
    EXPECT_EQ(support::env_cpu_margin(), std::nullopt);
}

TEST(Env, FlagSpellings) {
    for (const char* off : {"", "0", "false", "No", " OFF ", "FALSE"}) {
        ScopedEnv env("TACK_TEST_FLAG", off);
        EXPECT_FALSE(support::env_flag("TACK_TEST_FLAG")) << "'" << off << "'";
    }
    for (const char* on : {"1", "yes", "true", "anything"}) {
        ScopedEnv env("TACK_TEST_FLAG", on);
        EXPECT_TRUE(support::env_flag("TACK_TEST_FLAG")) << "'" << on << "'";
    }
    ScopedEnv env("TACK_TEST_FLAG", std::nullopt);
    EXPECT_FALSE(support::env_flag("TACK_TEST_FLAG"));
}

}  // namespace
}  // namespace tack::runtime::cpu
