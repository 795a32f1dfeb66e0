// Running the system C++ compiler.
#include "runtime/compiler_invocation.h"

#include "trapeze/error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trapeze::runtime {

namespace {

/// A file descriptor closed when it goes out of scope.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

private:
  int fd_;
};

/// posix_spawn's file actions, destroyed when they go out of scope.
class SpawnActions {
public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  posix_spawn_file_actions_t* get() { return &actions_; }

private:
  posix_spawn_file_actions_t actions_;
};

std::string read_all(int fd) {
  std::string out;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      out.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return out;
    }
  }
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

bool is_blank(const std::string& s) { return split_words(s).empty(); }

} // namespace

ProcessResult run_process(const std::vector<std::string>& argv) {
  TRAPEZE_ASSERT(!argv.empty(), "run_process needs a program to run");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Error("cannot create a pipe to run '" + argv[0] + "': " + std::strerror(errno));
  FileDescriptor read_end(fds[0]), write_end(fds[1]);

  SpawnActions actions;
  posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), STDERR_FILENO);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], actions.get(), nullptr, args.data(), environ);
  if (rc != 0)
    throw Error("cannot run '" + argv[0] + "': " + std::strerror(rc) +
                " (set CompileOptions::compiler or $CXX to an installed C++ compiler)");
  // Close our copy of the write end so that read() sees end-of-file when the child exits.
  write_end.reset();
  ProcessResult result;
  result.output = read_all(read_end.get());
  result.exit_code = wait_for(pid);
  return result;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::vector<std::string> resolve_compiler(const CompileOptions& options) {
  std::string text = options.compiler;
  if (is_blank(text)) text = environment("CXX");
  if (is_blank(text)) text = "c++";
  return split_words(text);
}

std::string resolve_flags(const CompileOptions& options, const std::vector<std::string>& compiler) {
  if (!is_blank(options.flags)) return options.flags;
  const std::string env = environment("TRAPEZE_CXXFLAGS");
  if (!is_blank(env)) return env;
  std::string flags = "-O3 -march=native -fopenmp -ffp-contract=off -fno-trapping-math";
  const MachineModel machine =
      options.scheduling.machine ? *options.scheduling.machine : host_machine(options);
  if (!machine.vector_gathers) {
    const std::string no_gathers = no_gathers_flag(compiler);
    if (!no_gathers.empty()) flags += " " + no_gathers;
  }
  return flags;
}

const std::string& no_gathers_flag(const std::vector<std::string>& compiler) {
  // GCC 13.2 and later: -mno-gather; before, the tuning knobs (named
  // use_gather before GCC 13, use_gather_8parts after). Clang has none.
  static const std::vector<std::string> candidates = {
      "-mno-gather", "-mtune-ctrl=^use_gather_2parts,^use_gather_4parts,^use_gather_8parts",
      "-mtune-ctrl=^use_gather_2parts,^use_gather_4parts,^use_gather"};
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::string> accepted;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = accepted.find(compiler); found != accepted.end()) return found->second;
  std::string& flag = accepted[compiler];
  for (const std::string& candidate : candidates) {
    std::vector<std::string> argv = compiler;
    argv.insert(argv.end(), {candidate, "-fsyntax-only", "-x", "c++", "/dev/null"});
    try {
      const ProcessResult r = run_process(argv);
      if (r.exit_code == 0 && r.output.empty()) {
        flag = candidate;
        break;
      }
    } catch (const Error&) {
      break; // no compiler to ask: compile_to_cache names it
    }
  }
  return flag;
}

std::vector<std::string> required_flags() { return {"-shared", "-fPIC", "-std=c++17"}; }

std::string compiler_identity(const std::vector<std::string>& compiler) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::string> identities;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = identities.find(compiler);
    if (it != identities.end()) return it->second;
  }
  std::vector<std::string> argv = compiler;
  argv.push_back("--version");
  const ProcessResult r = run_process(argv);
  const std::string first_line = r.output.substr(0, r.output.find('\n'));
  if (r.exit_code != 0 || first_line.empty())
    throw Error("'" + command_text(argv) + "' failed (exit code " + std::to_string(r.exit_code) +
                "): " + r.output.substr(0, 2000) +
                "\nSet CompileOptions::compiler or $CXX to an installed C++ compiler.");
  std::lock_guard<std::mutex> lock(mutex);
  identities.emplace(compiler, first_line);
  return first_line;
}

std::vector<std::string> compile_command(const std::vector<std::string>& compiler,
                                         const std::string& flags, const std::string& source_path,
                                         const std::string& output_path) {
  std::vector<std::string> argv = compiler;
  for (std::string& f : split_words(flags))
    argv.push_back(std::move(f));
  for (std::string& f : required_flags())
    argv.push_back(std::move(f));
  argv.push_back("-o");
  argv.push_back(output_path);
  argv.push_back(source_path);
  return argv;
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv)
    s += (s.empty() ? "" : " ") + a;
  return s;
}

} // namespace trapeze::runtime
