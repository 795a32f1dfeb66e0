// `trapeze machine [--json] [--machine FILE] [--cores N] ...`: the machine
// model the automatic schedulers use, as read off this machine (sysfs, else
// cpuid) and overridden; its JSON is what --machine takes, so a schedule can
// be made for another machine.
#include "commands.h"
#include "schedule_choice.h"

#include <fmt/core.h>

namespace trapeze::cli {

void add_machine_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand(
      "machine", "Print the machine model the schedulers use (cores, caches, vector width)");
  struct Options {
    bool json = false;
    MachineChoice machine;
  };
  auto o = std::make_shared<Options>();
  cmd->add_flag("--json", o->json, "Print it as JSON (what --machine FILE takes)");
  add_machine_options(*cmd, o->machine);
  cmd->callback([o, &exit_code] {
    const MachineModel m = o->machine.resolve();
    if (o->json) {
      fmt::print("{}\n", m.to_json());
    } else {
      fmt::print("cores        {}\n", m.cores);
      fmt::print("L1 data      {} KiB per core\n", m.l1_bytes / 1024);
      fmt::print("L2           {} KiB per core\n", m.l2_bytes / 1024);
      fmt::print("L3           {}\n",
                 m.l3_bytes > 0 ? fmt::format("{} KiB", m.l3_bytes / 1024) : "unknown");
      fmt::print("cache line   {} bytes\n", m.cache_line_bytes);
      fmt::print("vectors      {} bytes\n", m.vector_bytes);
      fmt::print("ops/byte     {:g} (operations a core computes while a byte streams; assumed)\n",
                 m.ops_per_byte);
      fmt::print("read from    {}\n", m.source);
    }
    exit_code = 0;
  });
}

} // namespace trapeze::cli
