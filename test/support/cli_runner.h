// Running the built trapeze command line from a test, as a user runs it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace trapeze::testing_support {

/// What one command printed and returned.
struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `cli args` through the shell with `environment` ("NAME='value' ...",
/// may be empty) in front, capturing stdout and stderr in files under `dir`.
inline CliResult run_cli(const std::string& cli, const std::string& args,
                         const std::filesystem::path& dir, const std::string& environment = "") {
  const std::filesystem::path out = dir / "stdout", err = dir / "stderr";
  const std::string cmd = environment + (environment.empty() ? "" : " ") + cli + " " + args +
                          " > " + out.string() + " 2> " + err.string();
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

} // namespace trapeze::testing_support
