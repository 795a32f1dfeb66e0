// `trapeze machine [--json] [--measure] [--machine FILE] [--cores N] ...`:
// the machine model the automatic schedulers use, as read off this machine
// (sysfs, else cpuid; the row runs' bandwidth measured once and kept) and
// overridden; its JSON is what --machine takes, so a schedule can be made
// for another machine.
#include "commands.h"
#include "schedule_choice.h"
#include "trapeze/runtime.h"

#include <fmt/core.h>

namespace trapeze::cli {

void add_machine_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand(
      "machine",
      "Print the machine model the schedulers use (cores, caches, vector width, row runs)");
  struct Options {
    bool json = false;
    bool measure = false;
    MachineChoice machine;
  };
  auto o = std::make_shared<Options>();
  cmd->add_flag("--json", o->json, "Print it as JSON (what --machine FILE takes)");
  cmd->add_flag("--measure", o->measure,
                "Measure the row runs' bandwidth, the gathers and the row windows again and keep "
                "them in the cache directory (done once per machine otherwise)");
  add_machine_options(*cmd, o->machine);
  cmd->callback([o, &exit_code] {
    if (o->measure) host_machine({}, true);
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
      if (m.run_bandwidth.empty()) {
        fmt::print("row runs     every run at full bandwidth (not measured)\n");
      } else {
        fmt::print("row runs     bandwidth share reading / writing runs of contiguous bytes:\n");
        for (const MachineModel::RunShare& r : m.run_bandwidth)
          fmt::print("             {:>7} bytes  {:.2f} / {:.2f}\n", r.bytes, r.read, r.write);
      }
      fmt::print("gathers      {}\n",
                 m.vector_gathers ? "the CPU's vector gathers (the compiler's choice)"
                                  : "one scalar load a lane (measured faster than gathers)");
      fmt::print(
          "row windows  a stencil in strips of whole rows, whose window spills the L1, runs at "
          "{:.2f} of its speed in the same strips with rows cut short{}\n",
          m.l2_window_share, m.l2_window_share < 1 ? "" : " (or faster, or not measured)");
      fmt::print("read from    {}\n", m.source);
    }
    exit_code = 0;
  });
}

} // namespace trapeze::cli
