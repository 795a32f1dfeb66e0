// The trapeze command line: list, run, emit, explain, schedule, bench, machine.
//
// Exit codes (README.md): 0 success; 1 an error in the pipeline, the
// schedule or the data (a failed check or compile, out of memory, and a bug in
// trapeze too); 2 a usage error (an unknown command, app, option or parameter,
// a malformed value). Nothing else: every exception ends here.
#include "commands.h"
#include "trapeze/error.h"
#include "trapeze/version.h"
#include "usage_error.h"

#include <cstdio>
#include <exception>
#include <new>
#include <string>

int main(int argc, char** argv) {
  CLI::App root{"trapeze " TRAPEZE_VERSION_STRING
                ": an optimizing compiler for image-processing pipelines",
                "trapeze"};
  root.require_subcommand(1);
  root.set_version_flag("--version", TRAPEZE_VERSION_STRING);
  int exit_code = 0;
  trapeze::cli::add_list_command(root, exit_code);
  trapeze::cli::add_run_command(root, exit_code);
  trapeze::cli::add_emit_command(root, exit_code);
  trapeze::cli::add_explain_command(root, exit_code);
  trapeze::cli::add_schedule_command(root, exit_code);
  trapeze::cli::add_bench_command(root, exit_code);
  trapeze::cli::add_machine_command(root, exit_code);
  try {
    // CLI11 says only that a subcommand is required; name the one it did not know.
    if (argc > 1 && argv[1][0] != '-') {
      std::string commands;
      bool known = false;
      for (const CLI::App* sub : root.get_subcommands([](CLI::App*) { return true; })) {
        known = known || sub->get_name() == argv[1];
        commands += (commands.empty() ? "" : ", ") + sub->get_name();
      }
      if (!known)
        throw trapeze::cli::UsageError("unknown command '" + std::string(argv[1]) +
                                       "' (commands: " + commands + ")");
    }
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return root.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "trapeze: %s (see 'trapeze --help')\n", e.what());
    return 2;
  } catch (const trapeze::cli::UsageError& e) {
    std::fprintf(stderr, "trapeze: %s (see 'trapeze --help')\n", e.what());
    return 2;
  } catch (const trapeze::Error& e) {
    std::fprintf(stderr, "trapeze: error: %s\n", e.what());
    return 1;
  } catch (const trapeze::InternalError& e) {
    std::fprintf(stderr, "trapeze: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "trapeze: error: out of memory (an allocation failed outside the "
                         "pipeline's own buffers; try smaller parameter values)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trapeze: error: %s (an unexpected library error)\n", e.what());
    return 1;
  }
  return exit_code;
}
