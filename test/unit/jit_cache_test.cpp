// Running the system compiler and the JIT's on-disk cache, on hand-written sources.
#include "jit_test_support.h"
#include "runtime/compiler_invocation.h"
#include "runtime/jit_cache.h"
#include "runtime/shared_library.h"
#include "trapeze/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace trapeze {
namespace {

namespace fs = std::filesystem;
using runtime::CacheEntry;
using runtime::compile_to_cache;
using runtime::entry_is_sound;
using test::TempDir;
using testing::HasSubstr;
using testing::Not;

/// A tiny library whose function `answer` returns `value`.
std::string answer_source(int value) {
  return "extern \"C\" int answer(void) { return " + std::to_string(value) + "; }\n";
}

int call_answer(const std::string& library_path) {
  const auto library = runtime::SharedLibrary::open(library_path);
  const auto answer = reinterpret_cast<int (*)()>(library->symbol("answer"));
  if (!answer) return -1;
  return answer();
}

/// The file names in `dir` (not recursive), sorted.
std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---------------------------------------------------------------- invocation

TEST(CompilerInvocation, SplitsFlagsOnWhitespace) {
  EXPECT_EQ(runtime::split_words("  -O2\t-g \n -DX=1 "),
            (std::vector<std::string>{"-O2", "-g", "-DX=1"}));
  EXPECT_TRUE(runtime::split_words(" \t").empty());
}

TEST(CompilerInvocation, CompilerComesFromOptionsThenCxxThenDefault) {
  CompileOptions options;
  {
    test::ScopedEnv cxx("CXX", std::nullopt);
    EXPECT_EQ(runtime::resolve_compiler(options), (std::vector<std::string>{"c++"}));
  }
  {
    test::ScopedEnv cxx("CXX", "ccache g++");
    EXPECT_EQ(runtime::resolve_compiler(options), (std::vector<std::string>{"ccache", "g++"}));
    options.compiler = "clang++";
    EXPECT_EQ(runtime::resolve_compiler(options), (std::vector<std::string>{"clang++"}));
  }
}

TEST(CompilerInvocation, FlagsComeFromOptionsThenEnvironmentThenDefault) {
  CompileOptions options;
  const std::vector<std::string> gcc = {"g++"};
  // The machine the code runs on: here one whose gathers pay off.
  options.scheduling.machine = MachineModel{};
  {
    test::ScopedEnv flags("TRAPEZE_CXXFLAGS", std::nullopt);
    EXPECT_EQ(runtime::resolve_flags(options, gcc),
              "-O3 -march=native -fopenmp -ffp-contract=off -fno-trapping-math");
  }
  {
    test::ScopedEnv flags("TRAPEZE_CXXFLAGS", "-O2 -g");
    EXPECT_EQ(runtime::resolve_flags(options, gcc), "-O2 -g");
    options.flags = "-O1";
    EXPECT_EQ(runtime::resolve_flags(options, gcc), "-O1");
  }
}

TEST(CompilerInvocation, DefaultFlagsKeepGccFromGatheringWhereScalarLoadsWin) {
  // MachineModel::vector_gathers false (measured by host_machine(), or given):
  // the default flags gain the spelling of "no gathers" this GCC accepts
  // (-mno-gather from GCC 13.2, the tuning knobs before); Clang has none.
  CompileOptions options;
  MachineModel machine;
  machine.vector_gathers = false;
  options.scheduling.machine = machine;
  test::ScopedEnv flags("TRAPEZE_CXXFLAGS", std::nullopt);
  const std::string& no_gathers = runtime::no_gathers_flag({"g++"});
  EXPECT_THAT(no_gathers, testing::AnyOf(HasSubstr("-mno-gather"), HasSubstr("use_gather")));
  EXPECT_EQ(runtime::resolve_flags(options, {"g++"}),
            "-O3 -march=native -fopenmp -ffp-contract=off -fno-trapping-math " + no_gathers);
  EXPECT_EQ(runtime::no_gathers_flag({"no-such-compiler-here"}), "");
  // Flags given by the user are theirs alone.
  options.flags = "-O2";
  EXPECT_EQ(runtime::resolve_flags(options, {"g++"}), "-O2");
}

TEST(CompilerInvocation, CommandAddsSharedPicAndCxx17) {
  const auto argv = runtime::compile_command({"ccache", "g++"}, " -O2  -g", "in.cpp", "out.so");
  EXPECT_EQ(argv, (std::vector<std::string>{"ccache", "g++", "-O2", "-g", "-shared", "-fPIC",
                                            "-std=c++17", "-o", "out.so", "in.cpp"}));
}

TEST(CompilerInvocation, CapturesOutputAndExitCodeWithoutAShell) {
  const auto r = runtime::run_process({"sh", "-c", "echo to-out; echo to-err >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.output, HasSubstr("to-out"));
  EXPECT_THAT(r.output, HasSubstr("to-err"));
  // Arguments reach the program verbatim: nothing is interpreted by a shell.
  const auto literal = runtime::run_process({"printf", "%s", "a b; echo injected $HOME"});
  EXPECT_EQ(literal.exit_code, 0);
  EXPECT_EQ(literal.output, "a b; echo injected $HOME");
}

TEST(CompilerInvocation, MissingProgramIsAnError) {
  try {
    runtime::run_process({"trapeze-no-such-compiler", "--version"});
    FAIL() << "expected trapeze::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot run 'trapeze-no-such-compiler'"));
    EXPECT_THAT(e.what(), HasSubstr("$CXX"));
  }
  EXPECT_THROW(runtime::compiler_identity({"trapeze-no-such-compiler"}), Error);
}

TEST(CompilerInvocation, IdentityIsTheFirstLineOfVersion) {
  const std::string id = runtime::compiler_identity({"c++"});
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(id.find('\n'), std::string::npos);
  EXPECT_EQ(runtime::compiler_identity({"c++"}), id); // cached, same answer
}

// --------------------------------------------------------------------- cache

TEST(JitCache, DirectoryComesFromOptionsThenEnvironment) {
  test::ScopedEnv trapeze_dir("TRAPEZE_CACHE_DIR", std::nullopt);
  test::ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
  test::ScopedEnv home("HOME", "/home/someone");
  CompileOptions options;
  EXPECT_EQ(runtime::resolve_cache_dir(options), "/home/someone/.cache/trapeze");
  {
    test::ScopedEnv xdg_set("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(runtime::resolve_cache_dir(options), "/xdg/trapeze");
    test::ScopedEnv dir_set("TRAPEZE_CACHE_DIR", "/explicit");
    EXPECT_EQ(runtime::resolve_cache_dir(options), "/explicit");
    options.cache_dir = "/from-options";
    EXPECT_EQ(runtime::resolve_cache_dir(options), "/from-options");
  }
}

TEST(JitCache, KeyChangesWithSourceFlagsAndCompiler) {
  const std::string base = runtime::cache_key("int f();", "c++", "gcc 12", "-O3");
  EXPECT_EQ(base.size(), 32u);
  EXPECT_EQ(base.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(runtime::cache_key("int f();", "c++", "gcc 12", "-O3"), base);
  EXPECT_NE(runtime::cache_key("int g();", "c++", "gcc 12", "-O3"), base);
  EXPECT_NE(runtime::cache_key("int f();", "c++", "gcc 12", "-O2"), base);
  EXPECT_NE(runtime::cache_key("int f();", "c++", "gcc 13", "-O3"), base);
  EXPECT_NE(runtime::cache_key("int f();", "clang++", "gcc 12", "-O3"), base);
  // Fields are delimited: moving text from one field to the next changes the key.
  EXPECT_NE(runtime::cache_key("int f();", "c++", "gcc 12", "-O3"),
            runtime::cache_key("int f();c", "++", "gcc 12", "-O3"));
}

TEST(JitCache, CompilesOnceThenHits) {
  TempDir cache;
  const CompileOptions options = test::test_options(cache);
  const CacheEntry first = compile_to_cache(answer_source(42), options);
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(first.library_path, (cache.path() / (first.key + ".so")).string());
  EXPECT_TRUE(entry_is_sound(cache.str(), first.key));
  EXPECT_EQ(call_answer(first.library_path), 42);

  const CacheEntry second = compile_to_cache(answer_source(42), options);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(files_in(cache.path()),
            (std::vector<std::string>{first.key + ".meta", first.key + ".so"}));
}

TEST(JitCache, DifferentSourceFlagsOrCompilerGiveDifferentEntries) {
  TempDir cache;
  CompileOptions options = test::test_options(cache);
  const CacheEntry a = compile_to_cache(answer_source(1), options);
  const CacheEntry b = compile_to_cache(answer_source(2), options);
  options.flags = "-O0";
  const CacheEntry c = compile_to_cache(answer_source(1), options);
  options.compiler = "env c++"; // the same compiler through a wrapper
  const CacheEntry d = compile_to_cache(answer_source(1), options);
  EXPECT_NE(a.key, b.key);
  EXPECT_NE(a.key, c.key);
  EXPECT_NE(c.key, d.key);
  EXPECT_FALSE(c.from_cache);
  EXPECT_FALSE(d.from_cache);
  EXPECT_EQ(call_answer(b.library_path), 2);
  EXPECT_EQ(call_answer(d.library_path), 1);
}

TEST(JitCache, TruncatedEntryIsDetectedAndRebuilt) {
  TempDir cache;
  const CompileOptions options = test::test_options(cache);
  const CacheEntry first = compile_to_cache(answer_source(7), options);
  const auto size = fs::file_size(first.library_path);
  fs::resize_file(first.library_path, size / 2);
  EXPECT_FALSE(entry_is_sound(cache.str(), first.key));

  const CacheEntry rebuilt = compile_to_cache(answer_source(7), options);
  EXPECT_FALSE(rebuilt.from_cache);
  EXPECT_EQ(rebuilt.library_path, first.library_path);
  EXPECT_TRUE(entry_is_sound(cache.str(), first.key));
  EXPECT_EQ(fs::file_size(rebuilt.library_path), size);
  EXPECT_EQ(call_answer(rebuilt.library_path), 7);
}

TEST(JitCache, CorruptOrMissingMetadataIsRebuilt) {
  TempDir cache;
  const CompileOptions options = test::test_options(cache);
  const CacheEntry first = compile_to_cache(answer_source(8), options);
  const fs::path meta = cache.path() / (first.key + ".meta");
  {
    // Same size, one byte flipped: only the hash can tell.
    std::fstream so(first.library_path, std::ios::in | std::ios::out | std::ios::binary);
    so.seekp(100);
    so.put('\x5a');
  }
  EXPECT_FALSE(entry_is_sound(cache.str(), first.key));
  EXPECT_FALSE(compile_to_cache(answer_source(8), options).from_cache);
  fs::remove(meta);
  EXPECT_FALSE(compile_to_cache(answer_source(8), options).from_cache);
  EXPECT_TRUE(entry_is_sound(cache.str(), first.key));
  EXPECT_TRUE(compile_to_cache(answer_source(8), options).from_cache);
}

TEST(JitCache, ConcurrentProcessesCompileOnceAndLeaveOneSoundEntry) {
  TempDir cache;
  const CompileOptions options = test::test_options(cache);
  const std::string source = answer_source(99);
  (void)runtime::compiler_identity({"c++"}); // spawn nothing else in the children but the compile

  // The children wait on a pipe so that they all start compiling at once.
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  constexpr int kChildren = 3;
  std::vector<pid_t> children;
  for (int i = 0; i < kChildren; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(start[1]);
      char go;
      if (::read(start[0], &go, 1) != 0) ::_exit(2);
      int code = 1;
      try {
        const CacheEntry e = compile_to_cache(source, options);
        code = call_answer(e.library_path) != 99 ? 3 : e.from_cache ? 10 : 0;
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]); // end-of-file releases every child at once

  int compiled = 0, hits = 0;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    const int code = WEXITSTATUS(status);
    EXPECT_TRUE(code == 0 || code == 10) << "child exit code " << code;
    compiled += code == 0;
    hits += code == 10;
  }
  EXPECT_EQ(compiled, 1); // the per-key lock makes the others wait and hit
  EXPECT_EQ(hits, kChildren - 1);
  const std::string key = compile_to_cache(source, options).key;
  EXPECT_EQ(files_in(cache.path()), (std::vector<std::string>{key + ".meta", key + ".so"}));
  EXPECT_TRUE(entry_is_sound(cache.str(), key));
}

TEST(JitCache, ConcurrentThreadsCompileOnce) {
  TempDir cache;
  const CompileOptions options = test::test_options(cache);
  std::atomic<int> compiled{0}, correct{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&] {
      const CacheEntry e = compile_to_cache(answer_source(5), options);
      compiled += e.from_cache ? 0 : 1;
      correct += call_answer(e.library_path) == 5 ? 1 : 0;
    });
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(compiled.load(), 1);
  EXPECT_EQ(correct.load(), 3);
}

TEST(JitCache, EvictionKeepsTheCacheUnderItsLimitLeastRecentlyUsedFirst) {
  TempDir cache;
  CompileOptions options = test::test_options(cache);
  const CacheEntry a = compile_to_cache(answer_source(1), options);
  const CacheEntry b = compile_to_cache(answer_source(2), options);
  const std::uint64_t one_entry = runtime::cache_size_bytes(cache.str()) / 2;
  // a was used long ago, b less long ago; a hit makes a the most recent.
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(a.library_path, now - std::chrono::hours(3));
  fs::last_write_time(b.library_path, now - std::chrono::hours(2));
  EXPECT_TRUE(compile_to_cache(answer_source(1), options).from_cache);

  options.cache_limit_bytes = one_entry * 5 / 2; // room for two entries, not three
  const CacheEntry c = compile_to_cache(answer_source(3), options);
  EXPECT_LE(runtime::cache_size_bytes(cache.str()), options.cache_limit_bytes);
  EXPECT_TRUE(entry_is_sound(cache.str(), a.key));
  EXPECT_FALSE(fs::exists(b.library_path));
  EXPECT_FALSE(fs::exists(cache.path() / (b.key + ".meta")));
  EXPECT_TRUE(entry_is_sound(cache.str(), c.key));

  // The entry just installed stays even if it alone is over the limit.
  options.cache_limit_bytes = 1;
  const CacheEntry d = compile_to_cache(answer_source(4), options);
  EXPECT_TRUE(entry_is_sound(cache.str(), d.key));
  EXPECT_EQ(files_in(cache.path()), (std::vector<std::string>{d.key + ".meta", d.key + ".so"}));
}

TEST(JitCache, CompileErrorQuotesTheCompilerAndKeepsTheSource) {
  TempDir cache;
  const CompileOptions options = test::test_options(cache);
  const std::string source = "int broken() { return trapeze_undeclared_name; }\n";
  std::string message;
  try {
    compile_to_cache(source, options, "pipeline 'broken'");
    FAIL() << "expected trapeze::Error";
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_THAT(message, HasSubstr("the C++ compiler failed on pipeline 'broken'"));
  EXPECT_THAT(message, HasSubstr("trapeze_undeclared_name"));
  const std::string key =
      runtime::cache_key(source, "c++", runtime::compiler_identity({"c++"}), options.flags);
  const fs::path kept = cache.path() / "failed" / (key + ".cpp");
  EXPECT_THAT(message, HasSubstr("the source is kept at " + kept.string()));
  EXPECT_EQ(read_text(kept), source);
  // The compiler's messages point at the kept file, not at a deleted temporary.
  EXPECT_THAT(message, HasSubstr(kept.string() + ":1"));
  EXPECT_THAT(message, Not(HasSubstr(".tmp-")));
  // Nothing is left in the cache but the lock and failed folders.
  EXPECT_TRUE(files_in(cache.path()).empty());
}

TEST(JitCache, LongCompilerOutputIsTrimmed) {
  TempDir cache;
  const CompileOptions options = test::test_options(cache);
  std::string source;
  for (int i = 0; i < 200; ++i)
    source += "int f" + std::to_string(i) + "() { return undeclared_" + std::to_string(i) + "; }\n";
  try {
    compile_to_cache(source, options);
    FAIL() << "expected trapeze::Error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_LT(message.size(), 6000u);
    EXPECT_THAT(message, HasSubstr("more characters in "));
    EXPECT_THAT(message, HasSubstr("undeclared_0"));
  }
}

// --------------------------------------------------------------- loading

TEST(SharedLibrary, ClosingAnOpenMpLibraryLeavesItsRuntimeLoaded) {
  TempDir cache;
  CompileOptions options = test::test_options(cache);
  options.flags = "-O1 -fopenmp";
  const std::string source = R"(#include <omp.h>
extern "C" int answer(void) {
  int sum = 0;
  #pragma omp parallel for reduction(+ : sum) num_threads(4)
  for (int i = 0; i < 1000; ++i) sum += i % 7;
  return sum + omp_get_max_threads() * 0;
}
)";
  const CacheEntry entry = compile_to_cache(source, options);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(call_answer(entry.library_path), 2997); // loads, runs, unloads
    // The runtime's idle worker threads would crash now if it had been unloaded.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_THAT(read_text("/proc/self/maps"), HasSubstr("libgomp"));
  }
}

TEST(HostMachine, MeasuresItsRowRunsOnceAndKeepsThem) {
  // The first call measures (about half a second) and keeps the curve in the
  // cache directory; a process that finds it there reads it instead.
  TempDir first;
  CompileOptions options;
  options.cache_dir = first.str();
  const MachineModel measured = host_machine(options);
  ASSERT_FALSE(measured.run_bandwidth.empty());
  for (std::size_t i = 0; i < measured.run_bandwidth.size(); ++i) {
    const MachineModel::RunShare& r = measured.run_bandwidth[i];
    EXPECT_GT(r.read, 0);
    EXPECT_LE(r.write, 1);
    if (i > 0) {
      EXPECT_GT(r.bytes, measured.run_bandwidth[i - 1].bytes);
    }
  }
  const std::vector<std::string> kept = files_in(first.path() / "machine");
  ASSERT_EQ(std::count_if(kept.begin(), kept.end(),
                          [](const std::string& f) { return f.ends_with(".json"); }),
            1)
      << testing::PrintToString(kept);
  const std::string name = *std::find_if(kept.begin(), kept.end(),
                                         [](const std::string& f) { return f.ends_with(".json"); });
  EXPECT_THAT(measured.source,
              HasSubstr("run bandwidth, gathers and row windows measured (" + first.str()));
  // The whole model is kept, the gathers' verdict with it.
  EXPECT_EQ(
      MachineModel::from_json(read_text(first.path() / "machine" / name), MachineModel{}, "kept")
          .vector_gathers,
      measured.vector_gathers);
  EXPECT_EQ(measured.cores, MachineModel::host().cores);
  EXPECT_GT(measured.l2_window_share, 0);
  EXPECT_LE(measured.l2_window_share, 1);

  // A kept entry is read, not measured.
  TempDir second;
  fs::create_directories(second.path() / "machine");
  std::ofstream(second.path() / "machine" / name)
      << R"({"run_bandwidth": [{"bytes": 300, "read": 0.25, "write": 0.35}],
             "vector_gathers": false, "l2_window_share": 0.45})";
  options.cache_dir = second.str();
  const MachineModel read = host_machine(options);
  EXPECT_FALSE(read.vector_gathers);
  ASSERT_EQ(read.run_bandwidth.size(), 1u);
  EXPECT_EQ(read.run_bandwidth[0].bytes, 300);
  EXPECT_EQ(read.run_bandwidth[0].write, 0.35);
  EXPECT_EQ(read.l2_window_share, 0.45);

  // An entry kept before the row windows were measured is measured again:
  // the built-in default would stand in for the measurement.
  TempDir older;
  fs::create_directories(older.path() / "machine");
  std::ofstream(older.path() / "machine" / name)
      << R"({"run_bandwidth": [{"bytes": 300, "read": 0.25, "write": 0.35}],
             "vector_gathers": false})";
  options.cache_dir = older.str();
  const MachineModel remeasured = host_machine(options);
  EXPECT_EQ(remeasured.run_bandwidth.size(), measured.run_bandwidth.size());
  EXPECT_THAT(read_text(older.path() / "machine" / name), HasSubstr("\"l2_window_share\""));

  // A damaged entry is measured again and replaced; so is any entry asked
  // to be (`trapeze machine --measure`).
  TempDir third;
  fs::create_directories(third.path() / "machine");
  std::ofstream(third.path() / "machine" / name) << R"({"run_bandwidth": [{"bytes": -1)";
  options.cache_dir = third.str();
  EXPECT_GT(host_machine(options).run_bandwidth.size(), 1u);
  EXPECT_GT(
      MachineModel::from_json(read_text(third.path() / "machine" / name), MachineModel{}, "kept")
          .run_bandwidth.size(),
      1u);
  options.cache_dir = second.str();
  EXPECT_GT(host_machine(options, true).run_bandwidth.size(), 1u);
  EXPECT_GT(host_machine(options).run_bandwidth.size(), 1u);
}

} // namespace
} // namespace trapeze
