// Running the system C++ compiler: which compiler and flags, its identity, and
// one compile of a source file into a shared object.
#pragma once

#include "trapeze/runtime.h"

#include <string>
#include <vector>

namespace trapeze::runtime {

/// The exit status and the combined stdout and stderr of a finished process.
struct ProcessResult {
  int exit_code = 0; ///< the exit status; 128 + N if killed by signal N
  std::string output;
};

/// Runs argv[0] (searched in $PATH) with the given arguments, without a
/// shell, stdin from /dev/null, and captures its output. Throws
/// trapeze::Error naming the program if it cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv);

/// Splits on whitespace (no quoting: flags come from the user's own
/// configuration, and nothing is ever interpreted by a shell).
std::vector<std::string> split_words(const std::string& text);

/// The compiler command: CompileOptions::compiler, else $CXX, else "c++",
/// split into words (so "ccache g++" works).
std::vector<std::string> resolve_compiler(const CompileOptions& options);

/// The optimization flags: CompileOptions::flags, else $TRAPEZE_CXXFLAGS,
/// else "-O3 -march=native -fopenmp -ffp-contract=off -fno-trapping-math" (see runtime.h for why),
/// and `compiler`'s flag against vector gathers where the machine
/// (CompileOptions::scheduling.machine, else host_machine()) says scalar
/// loads beat them (MachineModel::vector_gathers).
std::string resolve_flags(const CompileOptions& options, const std::vector<std::string>& compiler);

/// The flag that keeps `compiler` from emitting vector gathers, the first of
/// the known spellings it accepts; empty where it accepts none (Clang).
/// Asked once per compiler command in a process.
const std::string& no_gathers_flag(const std::vector<std::string>& compiler);

/// The flags every JIT compile gets in addition (the generated code is C++17).
std::vector<std::string> required_flags();

/// The first line of `<compiler> --version`, computed once per compiler
/// command in a process. Throws trapeze::Error if the compiler cannot run.
std::string compiler_identity(const std::vector<std::string>& compiler);

/// The complete command line compiling `source_path` into the shared object
/// `output_path`.
std::vector<std::string> compile_command(const std::vector<std::string>& compiler,
                                         const std::string& flags, const std::string& source_path,
                                         const std::string& output_path);

/// The command line joined with spaces, for messages.
std::string command_text(const std::vector<std::string>& argv);

} // namespace trapeze::runtime
