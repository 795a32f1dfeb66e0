// Ahead-of-time output: the generated header and source for a user's build.
#include "runtime/generate_source.h"
#include "trapeze/error.h"
#include "trapeze/runtime.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace trapeze {

namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error("emit_aot: cannot write '" + path.string() + "': " + std::strerror(errno));
}

} // namespace

std::vector<std::string> emit_aot(const Pipeline& p, const std::string& dir,
                                  const CompileOptions& options) {
  return emit_aot(p, cached_auto_schedule(p, options), dir);
}

std::vector<std::string> emit_aot(const Pipeline& p, const Schedule& schedule,
                                  const std::string& dir) {
  if (p.name().empty() || p.name() == "." || p.name() == ".." ||
      p.name().find('/') != std::string::npos)
    throw Error("emit_aot: the pipeline name '" + p.name() +
                "' cannot name the files <name>.h and <name>.cpp; give the Pipeline a name "
                "without '/' (its second constructor argument)");
  const codegen::CppModule module = runtime::generate_source(p, schedule);
  const std::filesystem::path folder(dir.empty() ? "." : dir);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec)
    throw Error("emit_aot: cannot create the directory '" + folder.string() + "': " + ec.message());
  const std::filesystem::path header = folder / (p.name() + ".h");
  const std::filesystem::path source = folder / (p.name() + ".cpp");
  write_text(header, module.header);
  write_text(source, module.source);
  return {header.string(), source.string()};
}

} // namespace trapeze
