// Robustness sweep over the golden programs: every accepted program lowers (and verifies) for
// each signature its `# inspect:` lines name; no program, accepted or rejected, makes lowering
// fail with anything but a CompileError.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "unit/sema/test_lower_util.hpp"

namespace tack::sema::testing {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::vector<fs::path> golden(const char* dir) {
    std::vector<fs::path> out;
    fs::path root = fs::path(TACK_SOURCE_DIR) / "tests" / "golden" / dir;
    if (!fs::exists(root)) return out;
    for (const auto& e : fs::directory_iterator(root)) {
        if (e.path().extension() == ".py") out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

struct Parsed {
    std::shared_ptr<frontend::Module> module;
    std::shared_ptr<ModuleEnvironment> env;
    diag::SourceFilePtr file;
};

Parsed parse(const fs::path& p) {
    Parsed r;
    r.file = std::make_shared<diag::SourceFile>(p.string(), read(p));
    auto parsed = frontend::parse_module(r.file);
    r.module = std::make_shared<frontend::Module>(std::move(parsed.module));
    r.env = std::make_shared<ModuleEnvironment>(r.module);
    return r;
}

TEST(LowerGolden, AcceptedProgramsLower) {
    std::regex inspect(R"(# inspect: (\w+) --args (\S*))");
    int lowered = 0;
    for (const auto& path : golden("accept")) {
        Parsed p = parse(path);
        std::string text = p.file->text();
        for (std::sregex_iterator it(text.begin(), text.end(), inspect), end; it != end; ++it) {
            const frontend::FunctionDef* fn = p.module->find((*it)[1].str());
            ASSERT_NE(fn, nullptr) << path;
            try {
                lower_kernel(*fn, p.file, *p.env, parse_arg_types((*it)[2].str()));
                ++lowered;
            } catch (const std::exception& e) {
                ADD_FAILURE() << path.filename() << " " << (*it)[2] << ": " << e.what();
            }
        }
    }
    EXPECT_GT(lowered, 0);
}

// Every dtype in every position: lowering either succeeds (and verifies) or raises a
// CompileError (e.g. "use an explicit integer cast"), never an internal error.
TEST(LowerGolden, AcceptedProgramsWithEveryDtype) {
    std::regex inspect(R"(# inspect: (\w+) --args (\S*))");
    for (const auto& path : golden("accept")) {
        Parsed p = parse(path);
        std::string text = p.file->text();
        std::smatch m;
        if (!std::regex_search(text, m, inspect)) continue;
        const frontend::FunctionDef* fn = p.module->find(m[1].str());
        ASSERT_NE(fn, nullptr) << path;
        std::vector<Type> base = parse_arg_types(m[2].str());
        for (int t = 0; t < kNumDTypes; ++t) {
            std::vector<Type> args = base;
            for (auto& a : args)
                a.dtype = static_cast<DType>(t);
            try {
                lower_kernel(*fn, p.file, *p.env, args);
            } catch (const diag::CompileError&) {
            } catch (const std::exception& e) {
                ADD_FAILURE() << path.filename() << " all " << name(static_cast<DType>(t)) << ": "
                              << e.what();
            }
        }
    }
}

TEST(LowerGolden, RejectedProgramsNeverCrash) {
    for (const auto& path : golden("reject")) {
        Parsed p = parse(path);
        for (const auto& fn : p.module->functions) {
            if (fn->def_kind != frontend::DefKind::Kernel) continue;
            for (bool arrays : {true, false}) {
                std::vector<Type> args(fn->params.size(),
                                       arrays ? arr(DType::f32) : scalar(DType::i32));
                try {
                    lower_kernel(*fn, p.file, *p.env, args);
                } catch (const diag::CompileError&) {
                } catch (const std::exception& e) {
                    ADD_FAILURE() << path.filename() << ": " << e.what();
                }
            }
        }
    }
}

}  // namespace
}  // namespace tack::sema::testing
