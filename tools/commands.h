// The subcommands of the trapeze command line. Each registers itself on the
// root CLI11 app; its callback sets the process exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace trapeze::cli {

void add_list_command(CLI::App& root, int& exit_code);
void add_run_command(CLI::App& root, int& exit_code);
void add_emit_command(CLI::App& root, int& exit_code);
void add_explain_command(CLI::App& root, int& exit_code);
void add_schedule_command(CLI::App& root, int& exit_code);
void add_bench_command(CLI::App& root, int& exit_code);
void add_machine_command(CLI::App& root, int& exit_code);

} // namespace trapeze::cli
