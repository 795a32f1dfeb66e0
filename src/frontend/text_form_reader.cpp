// Reading the pipeline text form: lex, parse, then build through the DSL.
#include "frontend/text_form_builder.h"
#include "frontend/text_form_lexer.h"
#include "frontend/text_form_parser.h"
#include "trapeze/text_form.h"

#include <fstream>
#include <sstream>

namespace trapeze {

Pipeline parse_pipeline(const std::string& text, const std::string& filename) {
  // The tokens go as soon as they are parsed: for a pipeline of 100,000
  // stages they take a quarter of the memory the whole reading needs.
  const text_form::SyntaxPipeline syntax =
      text_form::parse_syntax(text_form::tokenize(text, filename), filename);
  return text_form::build_pipeline(syntax, filename);
}

Pipeline load_pipeline(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot open the pipeline file '" + path +
                "': check the path (a text form as written by 'trapeze explain APP --ir')");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error("cannot read the pipeline file '" + path + "'");
  return parse_pipeline(text.str(), path);
}

} // namespace trapeze
