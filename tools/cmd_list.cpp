// `trapeze list`: the apps.
#include "app.h"
#include "commands.h"

#include <fmt/core.h>

namespace trapeze::cli {

void add_list_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand("list", "List the apps (benchmark pipelines)");
  cmd->callback([&exit_code] {
    for (const apps::App& a : apps::all_apps())
      fmt::print("{:<14} {}\n", a.name, a.description);
    exit_code = 0;
  });
}

} // namespace trapeze::cli
