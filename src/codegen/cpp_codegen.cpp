// Loop IR to readable C++ with OpenMP: names, buffers, loops, the entry function.
#include "codegen/cpp_codegen.h"

#include "analysis/bounds_prover.h"
#include "codegen/abi.h"
#include "codegen/cpp_arguments.h"
#include "codegen/cpp_expr.h"
#include "codegen/cpp_header.h"
#include "codegen/gather_bases.h"
#include "lower/large_stack.h"
#include "trapeze/ir_visitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <set>
#include <utility>

namespace trapeze::codegen {

using namespace ir;
using lower::Stmt;

namespace {

// A C++ identifier for `name`: other characters become '_', no leading digit
// or underscore, no double underscore, no tz_/trapeze_ prefix.
std::string sanitize(const std::string& name) {
  std::string s;
  for (char c : name) {
    const char k = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (k == '_' && !s.empty() && s.back() == '_') continue;
    s += k;
  }
  if (s.empty() || s[0] == '_' || std::isdigit(static_cast<unsigned char>(s[0])) ||
      s.rfind("tz_", 0) == 0 || s.rfind("trapeze_", 0) == 0)
    s = "v" + s; // the generated code's own names start with tz_ and trapeze_
  return s;
}

// Scoped names: every IR name (keyed by its kind) maps to a C++ identifier
// that is unique among the visible ones, so C++ never shadows an IR name.
class Names {
public:
  Names() { push(); }
  void push() { scopes_.emplace_back(); }
  void pop() { scopes_.pop_back(); }

  std::string declare(const std::string& key, const std::string& base) {
    const std::string clean = sanitize(base);
    std::string name = clean;
    for (int n = 2; taken(name); ++n)
      name = clean + "_" + std::to_string(n);
    scopes_.back().declared.insert(name);
    scopes_.back().bound[key] = name;
    return name;
  }

  std::string lookup(const std::string& key) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      const auto found = it->bound.find(key);
      if (found != it->bound.end()) return found->second;
    }
    TRAPEZE_ASSERT(false, "no C++ name for " + key);
  }

  bool bound(const std::string& key) const {
    for (const Scope& s : scopes_)
      if (s.bound.count(key)) return true;
    return false;
  }

private:
  bool taken(const std::string& name) const {
    if (cpp_reserved_names().count(name) || name.rfind("tz_", 0) == 0 ||
        name.rfind("trapeze_", 0) == 0)
      return true;
    for (const Scope& s : scopes_)
      if (s.declared.count(name)) return true;
    return false;
  }

  struct Scope {
    std::set<std::string> declared;
    std::map<std::string, std::string> bound;
  };
  std::vector<Scope> scopes_;
};

// How a buffer is indexed in C++: its pointer and, per dimension, the origin
// (a literal or a name), the stride (a name; the last dimension has none) and
// the extent (a name, for bounds checks); `what` names it in messages.
struct BufferNames {
  std::string pointer;
  std::string pointer_type; ///< "const float*", "float*"
  std::vector<std::string> origin;
  std::vector<std::string> stride;
  std::vector<std::string> extent;
  std::string what;
  std::string producer; ///< the stage (or input) whose values it holds
  /// Its memory is a tz_buffer, which runs at least three bytes past the
  /// last element: a narrow element may be read as the word that starts at
  /// it (tz_load_narrow). Not so for the caller's buffers.
  bool padded = false;
};

// "blurx", or "blurx_tile (holds blurx)" for a buffer named apart from its stage.
std::string buffer_description(const lower::Allocate& a) {
  return a.producer == a.name ? a.name : a.name + " (holds " + a.producer + ")";
}

// Whether `s` holds a parallel loop.
bool has_parallel_loop(const Stmt& s) {
  struct Finder : lower::StmtVisitor {
    bool found = false;
    void visit_node(const lower::For* n, const Stmt& self) override {
      found = found || lower::is_parallel(n->kind);
      if (!found) lower::StmtVisitor::visit_node(n, self);
    }
  } finder;
  finder.visit(s);
  return finder.found;
}

// A buffer a nest gathers from: its C++ pointer name and, per index, the
// largest constant a base pointer took from the index (declare_gather_bases).
struct Gathered {
  std::string pointer;
  std::vector<std::int64_t> pad;
};

// A gathering load in a vector loop, read from a base pointer.
struct GatherBase {
  std::string buffer;  ///< the C++ pointer it is based on
  std::string pointer; ///< the base pointer's name
  GatherSplit split;
};

class CppPrinter {
public:
  std::string body;
  std::string functions;          ///< the Outlined statements' functions, in order
  bool uses_vector_width = false; ///< an Outlined statement narrows its vectors
  std::set<std::string> helpers;
  /// Whether the body has a parallel loop, hence runs in the entry's parallel
  /// region: print_cpp wraps it in one, with the label tz_done at its end.
  bool uses_threads = false;
  bool uses_heap = false;
  bool uses_chunks = false;

  CppPrinter(const Pipeline& p, const CodegenOptions& options)
      : bounds_check_(options.bounds_check),
        gather_offsets32_limit_(options.bounds_check ? -1 : options.gather_offsets32_limit) {
    context_.var = [this](const std::string& n) { return names_.lookup("v:" + n); };
    context_.param = [this](const std::string& n) { return names_.lookup("p:" + n); };
    context_.load = [this](const Access& a, const std::vector<PrintedIndex>& idx) {
      const std::string key = "b:" + a.producer_name();
      const BufferNames& b = buffer(key);
      const bool gathered = std::any_of(idx.begin(), idx.end(),
                                        [](const PrintedIndex& i) { return i.data_dependent; });
      if (gathered) gathered_.emplace(key, Gathered{b.pointer, {}});
      std::string e;
      if (const auto based = gather_bases_.find(&a);
          based != gather_bases_.end() && based->second.buffer == b.pointer)
        e = based_element(b, based->second, idx);
      else
        e = gathered && offsets32_ ? element32(b, idx) : element(b, idx, "reads");
      // A look-up of bytes or halves at a data-dependent index (camera_pipe's
      // tone curve): GCC vectorizes a gather of words, not of narrower
      // elements (docs/performance.md, "Narrow look-ups read as words").
      if (!b.padded || byte_size(a.type) >= 4 || !gathered) return e;
      helpers.insert("tz_load_narrow");
      return "tz_load_narrow(&" + e + ")";
    };
    context_.helpers = &helpers;
    context_.local = [this](const std::string& base) {
      return names_.declare("l:" + std::to_string(locals_++), base);
    };
    for (std::size_t i = 0; i < p.params().size(); ++i) {
      const ParamInfo& q = p.params()[i];
      param_names_.insert(q.name);
      const std::string name = names_.declare("p:" + q.name, q.name);
      const std::string slot = "params[" + std::to_string(i) + "]";
      std::string value = slot + ".i";
      if (q.type == ScalarType::Float64) value = slot + ".f";
      if (q.type == ScalarType::Float32) value = "float(" + slot + ".f)";
      params_ +=
          "  const " + std::string(cpp_type_name(q.type)) + " " + name + " = " + value + ";\n";
      // The compiler relied on the declared range (Pipeline::set_range).
      if (!q.min && !q.max) continue;
      std::string outside, range;
      if (q.min) {
        outside = name + " < " + cpp_int_literal(ScalarType::Int64, *q.min);
        range = q.name + " >= " + std::to_string(*q.min);
      }
      if (q.max) {
        outside += (outside.empty() ? "" : " || ") + name + " > " +
                   cpp_int_literal(ScalarType::Int64, *q.max);
        range += (range.empty() ? "" : " and ") + q.name + " <= " + std::to_string(*q.max);
      }
      range_checks_ +=
          "  if (" + outside + ") {\n    tz_fail(tz_status_, 3, " +
          c_string_literal("parameter " + q.name + " = %lld is outside its range " + range) +
          ", (long long)" + name + ");\n    return tz_finish(tz_status_);\n  }\n";
    }
  }

  // The entry's body; in the parallel region if it has a parallel loop,
  // where it cannot return: an error jumps to the region's end instead.
  void print_entry_body(const Stmt& s) {
    uses_threads = has_parallel_loop(s);
    if (uses_threads) {
      early_exit_ = "goto tz_done;";
      depth_ = top_depth_ = 3; // in `single` and in a block of its own
    }
    print(s);
  }

  BufferArgumentCode buffer_arguments(const Pipeline& p) {
    // Without a parallel loop the entry has no team: the copies run on the caller's thread.
    return bind_buffer_arguments(
        p, [this](const Expr& e) { return expr(e); }, uses_threads ? "tz_threads" : "1");
  }

  const std::string& param_lines() const { return params_; }
  const std::string& range_checks() const { return range_checks_; }

  // At entry, what check_sizes checks on the host (docs/dsl.md, "Sizes"):
  // every input extent and domain bound evaluates without overflow, lies
  // within +-max_index and gives a box within max_buffer_bytes. AOT callers
  // get the same guarantee, and the 32-bit loops below cannot wrap.
  std::string size_checks(const Pipeline& p) const {
    std::string s =
        "  // Sizes: no bound overflows, every loop fits its 32-bit counter, every box its\n"
        "  // bytes (docs/dsl.md, \"Sizes\").\n"
        "  bool tz_sizes_ok = true;\n";
    const auto checked = [&](const Expr& e) {
      return print_checked_size_expr(e, context_, "tz_sizes_ok");
    };
    const auto check = [&](const std::string& what, const std::string& bounds, int bytes) {
      s += "  if (!tz_check_box(tz_status_, " + c_string_literal(what) + ", {" + bounds + "}, " +
           std::to_string(bytes) + ", tz_sizes_ok))\n    return tz_finish(tz_status_);\n";
    };
    for (const auto& in : p.inputs()) {
      std::string bounds;
      for (const Expr& e : in->extents())
        bounds += (bounds.empty() ? "0, " : ", 0, ") + std::string("tz_checked_sub(") + checked(e) +
                  ", int64_t(1), tz_sizes_ok)";
      if (!bounds.empty()) check("input '" + in->name() + "'", bounds, byte_size(in->type()));
    }
    for (const auto& f : p.stages()) {
      std::string bounds;
      for (const Interval& i : f->domain())
        bounds += (bounds.empty() ? "" : ", ") + checked(i.lo) + ", " + checked(i.hi);
      if (!bounds.empty()) check("stage '" + f->name() + "'", bounds, byte_size(f->type()));
      if (!f->definition().reduction) continue;
      bounds.clear();
      for (const Interval& i : f->definition().reduction->rdom)
        bounds += (bounds.empty() ? "" : ", ") + checked(i.lo) + ", " + checked(i.hi);
      if (!bounds.empty()) check("the reduction domain of stage '" + f->name() + "'", bounds, 0);
    }
    return s;
  }

  void print(const Stmt& s) {
    if (const auto* n = s.as<lower::For>()) return print_for(*n);
    if (const auto* n = s.as<lower::Block>()) {
      for (const Stmt& c : n->stmts)
        print(c);
      return;
    }
    if (const auto* n = s.as<lower::IfThenElse>()) return print_if(*n);
    if (const auto* n = s.as<lower::Allocate>()) return print_allocate(*n);
    if (const auto* n = s.as<lower::Store>()) {
      const BufferNames& target = buffer("s:" + n->buffer);
      storing_ = target.producer;
      std::vector<PrintedIndex> idx;
      for (const Expr& e : n->index)
        idx.push_back({expr(e), e.type()});
      CppExprContext value_context = context_;
      value_context.stage_value = true;
      const CppValue value = print_cpp_value(n->value, value_context);
      for (const std::string& declaration : value.declarations)
        line(declaration);
      line(element(target, idx, "writes") + " = " + value.value + ";");
      return;
    }
    if (const auto* n = s.as<lower::Prefetch>()) {
      // GCC's and Clang's hint: a prefetch for reading into every cache level.
      const auto& a = *n->access.as<Access>();
      const BufferNames& source = buffer("b:" + a.producer_name());
      storing_ = source.producer;
      std::vector<PrintedIndex> idx;
      for (const Expr& e : a.args)
        idx.push_back({expr(e), e.type()});
      line("__builtin_prefetch(&" + element(source, idx, "prefetches") + ");");
      return;
    }
    if (const auto* n = s.as<lower::LetStmt>()) {
      // A value read from the data (a reduction's update target) may overflow
      // like a stage value; a coordinate or bound cannot.
      const std::string value = ir::reads_memory(n->value) ? stage_value(n->value) : expr(n->value);
      const std::string key = (n->value.type() == ScalarType::Int32 ? "v:" : "p:") + n->name;
      const std::string name = names_.declare(key, n->name);
      line("const " + std::string(cpp_type_name(n->value.type())) + " " + name + " = " + value +
           ";");
      print(n->body);
      return;
    }
    if (const auto* n = s.as<lower::Outlined>()) return print_outlined(*n);
    if (const auto* n = s.as<lower::Comment>()) {
      // A blank line before each stage's comment.
      if (depth_ == top_depth_ && !body.empty() && !last_line_comment_) body += "\n";
      std::size_t start = 0;
      while (start <= n->text.size()) {
        const std::size_t end = n->text.find('\n', start);
        line("// " + n->text.substr(start, end == std::string::npos ? end : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
      }
      return;
    }
    TRAPEZE_ASSERT(false, "unknown statement kind");
  }

private:
  void line(const std::string& text) {
    body += std::string(2 * depth_, ' ') + text + "\n";
    last_line_comment_ = text.rfind("//", 0) == 0;
  }
  std::string expr(const Expr& e) { return print_cpp_expr(e, context_); }
  // A value stored into a stage: integer overflow wraps (CppExprContext).
  std::string stage_value(const Expr& e) {
    CppExprContext value_context = context_;
    value_context.stage_value = true;
    return print_cpp_expr(e, value_context);
  }
  // A bound or an extent, assigned to a typed variable: a literal needs no type.
  std::string bound(const Expr& e) {
    if (const auto* k = e.as<IntConst>(); k && k->value > INT32_MIN && k->value <= INT32_MAX)
      return std::to_string(k->value);
    return expr(e);
  }

  const BufferNames& buffer(const std::string& key) const {
    const BufferNames* b = find_buffer(key);
    TRAPEZE_ASSERT(b, "no buffer in scope for " + key);
    return *b;
  }
  const BufferNames* find_buffer(const std::string& key) const {
    for (auto it = buffers_.rbegin(); it != buffers_.rend(); ++it) {
      const auto found = it->find(key);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }

  // `pointer[sum((i_d - origin_d) * stride_d)]`, in int64; in a bounds-checked
  // build, tz_checked(...), which stops the run at the first index outside the
  // buffer's allocation (`verb`: "reads" or "writes").
  std::string element(const BufferNames& b, const std::vector<PrintedIndex>& idx,
                      const char* verb) const {
    TRAPEZE_ASSERT(idx.size() == b.origin.size(), "access with the wrong number of indices");
    if (bounds_check_) {
      std::string index, origin, extent, stride;
      for (std::size_t d = 0; d < idx.size(); ++d) {
        const std::string sep = d ? ", " : "";
        index +=
            sep + (idx[d].type == ScalarType::Int64 ? idx[d].text : "int64_t(" + idx[d].text + ")");
        origin += sep + b.origin[d];
        extent += sep + b.extent[d];
        stride += sep + b.stride[d];
      }
      if (idx.empty()) { // a buffer of one element
        index = origin = "0";
        extent = stride = "1";
      }
      return "tz_checked(tz_status_, " + b.pointer + ", {" + index + "}, {" + origin + "}, {" +
             extent + "}, {" + stride + "}, " +
             c_string_literal("stage " + storing_ + " " + verb + " " + b.what) + ")";
    }
    std::string offset;
    for (std::size_t d = 0; d < idx.size(); ++d)
      offset += (d ? " + " : "") + offset_term(b, d, idx[d], d + 1 == idx.size());
    return b.pointer + "[" + offset + "]";
  }

  // Index `d`'s term of an element's int64 offset: `(i - origin) * stride`.
  static std::string offset_term(const BufferNames& b, std::size_t d, const PrintedIndex& i,
                                 bool last) {
    std::string term = i.type == ScalarType::Int64 ? i.text : "int64_t(" + i.text + ")";
    if (b.origin[d] != "0") {
      const bool simple = term.find_first_of(" ") == std::string::npos;
      term = (simple ? term : "(" + term + ")") + " - " + b.origin[d];
      if (!last) term = "(" + term + ")";
    } else if (!last && i.type == ScalarType::Int64 &&
               term.find_first_of(" ") != std::string::npos) {
      term = "(" + term + ")";
    }
    if (!last) term += " * " + b.stride[d];
    return term;
  }

  // The same term summed modulo 2^32 (element32).
  static std::string offset_term32(const BufferNames& b, std::size_t d, const std::string& text,
                                   bool last) {
    std::string term = "uint32_t(" + text + ")";
    if (b.origin[d] != "0") term = "(" + term + " - uint32_t(" + b.origin[d] + "))";
    if (!last) term += " * uint32_t(" + b.stride[d] + ")";
    return term;
  }

  // element() with the offset summed modulo 2^32 and read as int32: exact
  // where the buffer lies within 2^31 - 1 elements of its element 0 either
  // way, which the call of a nest's 32-bit copy checks (offsets32_condition).
  std::string element32(const BufferNames& b, const std::vector<PrintedIndex>& idx) const {
    TRAPEZE_ASSERT(!bounds_check_ && idx.size() == b.origin.size(),
                   "a 32-bit offset in a bounds-checked build, or the wrong number of indices");
    std::string offset;
    for (std::size_t d = 0; d < idx.size(); ++d)
      offset += (d ? " + " : "") + offset_term32(b, d, idx[d].text, d + 1 == idx.size());
    if (idx.empty()) offset = "0u";
    return b.pointer + "[int32_t(" + offset + ")]";
  }

  // The condition under which a nest's 32-bit copy may run: every buffer it
  // gathers from lies within the limit of its element 0. Empty where there
  // is no 32-bit copy to print (no gathers, the copies off, or a buffer
  // whose extents are not named here).
  std::string offsets32_condition() {
    if (gather_offsets32_limit_ < 0 || gathered_.empty()) return "";
    std::string condition;
    for (const auto& [key, gathered] : gathered_) {
      // A buffer of the nest's own (none so far) is not named at its call.
      const BufferNames* found = find_buffer(key);
      if (!found || found->pointer != gathered.pointer) return "";
      const BufferNames& b = *found;
      if (b.extent.size() != b.stride.size() || b.extent.empty()) return "";
      std::string extents, strides;
      for (std::size_t d = 0; d < b.extent.size(); ++d) {
        if (b.extent[d].empty()) return "";
        // A base pointer took constants of the indices (declare_gather_bases):
        // the offsets reach that much further either way.
        const std::int64_t pad = d < gathered.pad.size() ? gathered.pad[d] : 0;
        extents += (d ? ", " : "") + b.extent[d] + (pad ? " + " + std::to_string(pad) : "");
        strides += (d ? ", " : "") + std::string(d + 1 < b.extent.size() ? b.stride[d] : "1");
      }
      condition += std::string(condition.empty() ? "" : " && ") + "tz_offsets_fit(" +
                   std::to_string(gather_offsets32_limit_) + ", {" + extents + "}, {" + strides +
                   "})";
    }
    helpers.insert("tz_offsets_fit");
    return condition;
  }

  void print_for(const lower::For& n) {
    if (lower::is_parallel(n.kind) && parallel_depth_ == 0) return print_worker_loop(n, {});
    print_loop(n);
  }

  // PerThread buffers around a parallel loop (hoist_scratchpads): each worker
  // of the loop allocates its own (print_worker_loop).
  void print_per_thread(const lower::Allocate& first) {
    std::vector<const lower::Allocate*> scratch = {&first};
    Stmt inner = first.body;
    while (const auto* a = inner.as<lower::Allocate>()) {
      TRAPEZE_ASSERT(a->scope == lower::MemoryScope::PerThread,
                     "per-thread buffers must enclose their parallel loop directly");
      scratch.push_back(a);
      inner = a->body;
    }
    const auto* n = inner.as<lower::For>();
    TRAPEZE_ASSERT(n && lower::is_parallel(n->kind) && parallel_depth_ == 0,
                   "per-thread buffers around something else than an outermost parallel loop");
    print_worker_loop(*n, scratch);
  }

  // A parallel loop (its `collapse` nested loops counted as one run of
  // iterations) runs as one worker per thread of the call's team (the
  // entry's parallel region, print_cpp): each takes the next `chunk`
  // iterations from the loop's shared counter until none is left, as
  // Halide's thread pool does. The thread that reaches the loop runs one
  // worker itself and then waits only until the iterations are finished: a
  // thread that another process holds back takes less of the work, and
  // nothing waits for a worker that has not started (it finds nothing left),
  // as a barrier of the whole team (`omp for`) or the end of a taskloop
  // would (docs/performance.md, "Under load"). A worker runs on one thread
  // from start to end, so per-thread buffers are per worker, allocated with
  // its first iteration.
  void print_worker_loop(const lower::For& n, const std::vector<const lower::Allocate*>& scratch) {
    TRAPEZE_ASSERT(uses_threads, "a parallel loop outside the entry's parallel region");
    helpers.insert("tz_min");
    helpers.insert("tz_max");
    std::vector<const lower::For*> loops = {&n};
    while (static_cast<int>(loops.size()) < n.collapse) {
      loops.push_back(loops.back()->body.as<lower::For>());
      TRAPEZE_ASSERT(loops.back(), "a collapsed loop nests as deep as its collapse");
    }
    line("{");
    ++depth_;
    names_.push();
    buffers_.emplace_back();
    const IterationSpace space = declare_iteration_space(loops);
    const std::vector<std::string>& first = space.first;
    const std::vector<std::string>& count = space.count;
    const std::string& iterations = space.iterations;
    const std::string chunk = declare_chunk(n, iterations);
    const std::string state = names_.declare("#", n.var + "_loop");
    const std::string worker = names_.declare("#", "worker");
    const std::string start = names_.declare("#", n.var + "_start");
    line("tz_loop* const " + state + " = tz_loop_new(tz_threads);");
    line("if (!" + state + ") {");
    line("  tz_fail(tz_status_, 1, \"out of memory: the state of a parallel loop\");");
    line("  " + early_exit_);
    line("}");
    line(std::string("// ") + parallel_schedule_name(n.schedule) + ": " +
         (chunk == "1" ? std::string("one iteration at a time")
                       : "runs of " + chunk + " iterations") +
         " to whichever worker asks; worker 0 runs here");
    line("for (int " + worker + " = tz_threads - 1; " + worker + " >= 0; --" + worker + ") {");
    ++depth_;
    line("#pragma omp task if(" + worker + " > 0)");
    line("{");
    ++depth_;
    const std::string take = "tz_take(" + state + ", " + chunk + ")";
    line("int64_t " + start + " = " + take + ";");
    std::string memory_ok;
    if (!scratch.empty()) {
      line("if (" + start + " < " + iterations + ") { // scratchpads only for a worker with work");
      ++depth_;
      for (const lower::Allocate* a : scratch)
        memory_ok += (memory_ok.empty() ? "" : " && ") + declare_per_worker_buffer(*a) + ".data";
      const std::string ok = names_.declare("#", n.var + "_memory_ok");
      line("const bool " + ok + " = " + memory_ok + ";");
      memory_ok = ok;
    }
    // Every take is counted finished, by the loop's increment (a `continue`
    // in the body goes there), or the waiting thread would wait forever.
    const std::string taken =
        chunk == "1" ? "1" : "tz_min(" + start + " + " + chunk + ", " + iterations + ") - " + start;
    line("for (; " + start + " < " + iterations + "; tz_finished(" + state + ", " + taken + "), " +
         start + " = " + take + ") {");
    ++depth_;
    if (!memory_ok.empty()) line("if (!" + memory_ok + ") continue;");
    // The iterations of one take: a loop over them, or the one.
    std::string index = start;
    if (chunk != "1") {
      index = names_.declare("#", n.var + "_iteration");
      const std::string end = names_.declare("#", n.var + "_end");
      line("const int64_t " + end + " = tz_min(" + start + " + " + chunk + ", " + iterations +
           ");");
      if (lower::is_vectorized(n.kind)) line("#pragma omp simd");
      line("for (int64_t " + index + " = " + start + "; " + index + " < " + end + "; ++" + index +
           ") {");
      ++depth_;
    }
    // Each loop's variable from the flat iteration number.
    std::string divisor;
    for (std::size_t d = loops.size(); d-- > 0;) {
      std::string offset = index;
      if (!divisor.empty())
        offset += divisor.find(' ') == std::string::npos ? " / " + divisor : " / (" + divisor + ")";
      if (d > 0) offset = (divisor.empty() ? offset : "(" + offset + ")") + " % " + count[d];
      divisor = divisor.empty() ? count[d] : count[d] + " * " + divisor;
      const std::string v = names_.declare("v:" + loops[d]->var, loops[d]->var);
      line("const int32_t " + v + " = int32_t(" + first[d] + " + " + offset + ");");
    }
    ++parallel_depth_;
    print(loops.back()->body);
    --parallel_depth_;
    if (chunk != "1") {
      --depth_;
      line("}");
    }
    --depth_;
    line("}");
    if (!scratch.empty()) {
      --depth_;
      line("}");
    }
    line("tz_loop_release(" + state + ");");
    --depth_;
    line("}");
    --depth_;
    line("}");
    line("tz_loop_wait(" + state + ", " + iterations + ");");
    for (const lower::Allocate* a : scratch)
      hoisted_.erase(a->name);
    buffers_.pop_back();
    names_.pop();
    --depth_;
    line("}");
  }

  // A collapsed nest's iterations, numbered 0, 1, ... in the nest's order.
  struct IterationSpace {
    std::vector<std::string> first, count; ///< of each loop, outermost first
    std::string iterations;                ///< their product
  };

  IterationSpace declare_iteration_space(const std::vector<const lower::For*>& loops) {
    IterationSpace space;
    for (const lower::For* loop : loops) {
      space.first.push_back(names_.declare("#", loop->var + "_first"));
      space.count.push_back(names_.declare("#", loop->var + "_count"));
      line("const int64_t " + space.first.back() + " = " + bound(loop->min) + ";");
      line("const int64_t " + space.count.back() + " = tz_max(int64_t(" + bound(loop->max) +
           ") - " + space.first.back() + " + 1, int64_t(0));");
    }
    space.iterations = space.count[0];
    if (loops.size() > 1) {
      space.iterations = names_.declare("#", loops[0]->var + "_iterations");
      std::string product;
      for (const std::string& c : space.count)
        product += (product.empty() ? "" : " * ") + c;
      line("const int64_t " + space.iterations + " = " + product + ";");
    }
    return space;
  }

  // How many iterations a worker takes at a time, by the loop's schedule.
  std::string declare_chunk(const lower::For& n, const std::string& iterations) {
    std::string chunk;
    switch (n.schedule) {
    case ParallelSchedule::Dynamic: return "1";
    case ParallelSchedule::Static:
      chunk = names_.declare("#", n.var + "_chunk");
      line("const int64_t " + chunk + " = (" + iterations +
           " + tz_threads - 1) / tz_threads; // one share per worker");
      return chunk;
    case ParallelSchedule::Chunked:
      uses_chunks = true;
      chunk = names_.declare("#", n.var + "_chunk");
      line("const int64_t " + chunk + " = tz_chunk(" + iterations + ", tz_threads);");
      return chunk;
    }
    TRAPEZE_ASSERT(false, "unknown parallel schedule");
  }

  // A worker's own copy of a PerThread buffer, reported if it cannot be had;
  // Reuse statements in the loop give it an origin per iteration. Returns
  // the name of its tz_buffer.
  std::string declare_per_worker_buffer(const lower::Allocate& a) {
    uses_heap = true;
    line("// " + a.name + ": " + std::string(type_name(a.type)) + shape_text(a.extents) +
         " per worker (64-byte aligned), holds " + a.producer);
    Hoisted h;
    h.names.padded = true;
    h.names.stride.assign(a.extents.size(), "1");
    h.names.what = buffer_description(a);
    h.names.producer = a.producer;
    const std::string size = declare_shape(a.name, a.extents, h.names.stride, h.names.extent);
    h.memory = names_.declare("#", a.name + "_memory");
    line("tz_buffer " + h.memory + "(allocator, " + size + " * int64_t(sizeof(" +
         std::string(cpp_type_name(a.type)) + ")));");
    line("if (!" + h.memory + ".data)");
    line("  tz_out_of_memory(tz_status_, " + h.memory + ", " +
         c_string_literal("the per-thread buffer " + h.names.what) + ");");
    hoisted_[a.name] = h;
    return h.memory;
  }

  // Declares the extents and strides of a buffer; returns its element count.
  std::string declare_shape(const std::string& name, const std::vector<Expr>& extents,
                            std::vector<std::string>& stride, std::vector<std::string>& extent) {
    const std::size_t dims = extents.size();
    extent.assign(dims, "");
    for (std::size_t d = 0; d < dims; ++d) {
      extent[d] = names_.declare("#", name + "_extent" + std::to_string(d));
      line("const int64_t " + extent[d] + " = " + bound(extents[d]) + ";");
    }
    for (std::size_t d = dims - 1; d-- > 0;) {
      stride[d] = names_.declare("#", name + "_stride" + std::to_string(d));
      const std::string value =
          d + 2 == dims ? extent[d + 1] : stride[d + 1] + " * " + extent[d + 1];
      line("const int64_t " + stride[d] + " = " + value + ";");
    }
    return dims == 1 ? extent[0] : stride[0] + " * " + extent[0];
  }

  // A serial loop (or a vectorized one).
  void print_loop(const lower::For& n) {
    auto caller_bases = std::exchange(gather_bases_, {});
    if (lower::is_vectorized(n.kind)) declare_gather_bases(n);
    names_.push();
    buffers_.emplace_back();
    const std::string v = names_.declare("v:" + n.var, n.var);
    if (lower::is_vectorized(n.kind)) line("#pragma omp simd");
    line("for (int32_t " + v + " = " + bound(n.min) + "; " + v + " <= " + bound(n.max) + "; ++" +
         v + ") {");
    ++depth_;
    print(n.body);
    --depth_;
    line("}");
    buffers_.pop_back();
    names_.pop();
    gather_bases_ = std::move(caller_bases);
  }

  // Before a vector loop, a base pointer for each distinct loop-invariant
  // part of its gathering loads' addresses (gather_bases.h); the loads then
  // print as base[offset] (based_element), the offset holding only what
  // varies. Not in a bounds-checked build (each access checks itself), nor
  // for a buffer the loop stores into.
  void declare_gather_bases(const lower::For& n) {
    if (bounds_check_) return;
    const std::set<std::string> varying = names_bound_in(n);
    std::set<std::string> stored;
    for (const std::string& name : stored_buffers(n.body))
      if (const BufferNames* b = find_buffer("s:" + name)) stored.insert(b->pointer);
    std::map<std::string, std::string> declared; // base pointer's value -> its name
    for (const ir::Access* a : gathering_loads(n.body)) {
      const std::string key = "b:" + a->producer_name();
      const BufferNames* b = find_buffer(key);
      if (!b || stored.count(b->pointer) || a->args.size() != b->origin.size()) continue;
      GatherSplit split = split_gather_address(*a, varying);
      if (!split.has_base()) continue;
      std::string offset;
      for (std::size_t d = 0; d < a->args.size(); ++d) {
        const bool last = d + 1 == a->args.size();
        const std::int64_t k = split.addend[d];
        std::string term;
        if (split.part[d] == GatherSplit::Part::Base) {
          // Computed before the loop, also where a lazy ?: in the loop
          // would not have read it: wrapping, not overflowing, there.
          term = "int64_t(" + stage_value(a->args[d]) + ")";
          if (b->origin[d] != "0") term = "(" + term + " - " + b->origin[d] + ")";
          if (!last) term += " * " + b->stride[d];
        } else if (k != 0) {
          // A neighbour one stride away reads as such.
          term = last      ? cpp_int_literal(ScalarType::Int64, k)
                 : k == 1  ? b->stride[d]
                 : k == -1 ? "-" + b->stride[d]
                           : std::to_string(k) + " * " + b->stride[d];
        }
        if (!term.empty()) offset += (offset.empty() ? "" : " + ") + term;
      }
      const std::string value = b->pointer + " + (" + offset + ")";
      auto [it, added] = declared.emplace(value, "");
      if (added) {
        if (declared.size() == 1)
          line("// Base pointers: what the loop's gathers add to their varying offsets");
        it->second = names_.declare("g:" + std::to_string(gather_bases_count_++),
                                    a->producer_name() + "_base");
        line("const auto " + it->second + " = " + value + ";");
      }
      Gathered& g = gathered_.emplace(key, Gathered{b->pointer, {}}).first->second;
      g.pad.resize(a->args.size(), 0);
      for (std::size_t d = 0; d < a->args.size(); ++d)
        g.pad[d] = std::max(g.pad[d], split.addend[d] < 0 ? -split.addend[d] : split.addend[d]);
      gather_bases_.emplace(a, GatherBase{b->pointer, it->second, std::move(split)});
    }
  }

  // A load from a base pointer (declare_gather_bases): the offset sums the
  // indices that vary, a stem for one whose constant went to the base, in
  // 64 bits or, in a nest's 32-bit copy, modulo 2^32 as element32 does.
  std::string based_element(const BufferNames& b, const GatherBase& g,
                            const std::vector<PrintedIndex>& idx) {
    std::string offset;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      const GatherSplit::Part part = g.split.part[d];
      if (part == GatherSplit::Part::Base) continue;
      const bool last = d + 1 == idx.size();
      // A stem that reads memory is printed as the index it came from was:
      // as a stage's value, its arithmetic wrapping where it may overflow.
      PrintedIndex index = idx[d];
      if (part == GatherSplit::Part::Stem) {
        const Expr& stem = g.split.stem[d];
        index.text = reads_memory(stem) ? stage_value(stem) : expr(stem);
        index.type = stem.type();
      }
      offset += (offset.empty() ? "" : " + ") + (offsets32_ ? offset_term32(b, d, index.text, last)
                                                            : offset_term(b, d, index, last));
    }
    if (offsets32_) offset = "int32_t(" + offset + ")";
    return g.pointer + "[" + offset + "]";
  }

  // An Outlined statement: a call here, and its body as a function of its
  // own whose parameters are the body's free variables and buffers, under the
  // same C++ names as here (so the body prints exactly as it would inline).
  void print_outlined(const lower::Outlined& n) {
    const FreeNames free = free_names(n.body);
    std::vector<std::string> params, args;
    const auto pass = [&](const std::string& type, const std::string& name) {
      if (std::find(args.begin(), args.end(), name) != args.end()) return;
      params.push_back(type + " " + name);
      args.push_back(name);
    };
    for (const auto& [key, type] : free.values)
      pass("const " + std::string(cpp_type_name(type)), names_.lookup(key));
    for (const std::string& key : free.buffers) {
      const BufferNames& b = buffer(key);
      if (std::find(args.begin(), args.end(), b.pointer) != args.end()) continue;
      params.push_back(b.pointer_type + " __restrict " + b.pointer);
      args.push_back(b.pointer);
      for (const std::string& origin : b.origin)
        if (!origin.empty() && !std::isdigit(static_cast<unsigned char>(origin[0])) &&
            origin[0] != '-')
          pass("const int64_t", origin);
      for (const std::string& stride : b.stride)
        if (stride != "1") pass("const int64_t", stride);
      if (bounds_check_)
        for (const std::string& extent : b.extent)
          pass("const int64_t", extent);
    }
    if (bounds_check_) pass("tz_status&", "tz_status_");
    const std::string name = function_name("tile_" + sanitize(n.name));
    // The body, printed as a function at the file's top level; where it
    // gathers, a second time with 32-bit offsets (element32).
    std::string caller = std::move(body);
    const int caller_depth = depth_;
    const bool caller_comment = last_line_comment_;
    const int caller_top = top_depth_;
    auto caller_gathered = std::exchange(gathered_, {});
    body.clear();
    depth_ = top_depth_ = 1;
    print(n.body);
    std::string attributes = "__attribute__((noinline))";
    std::string comment =
        "// " + n.name + ": one nest of a tile, compiled as a function of its own\n";
    if (n.vector_bytes > 0) {
      uses_vector_width = true;
      attributes += " TZ_VECTOR_BITS(" + std::to_string(8 * n.vector_bytes) + ")";
      comment += "// (vectors of at most " + std::to_string(n.vector_bytes) +
                 " bytes, as the schedule's vector_bytes gives)\n";
    }
    functions +=
        comment + attributes + " void " + name + "(" + join_list(params) + ") {\n" + body + "}\n\n";
    const std::string fits = offsets32_condition();
    std::string name32;
    if (!fits.empty()) {
      name32 = function_name(name + "_offsets32");
      body.clear();
      depth_ = top_depth_ = 1;
      offsets32_ = true;
      print(n.body);
      offsets32_ = false;
      functions += "// " + n.name +
                   ": the same nest, its gathers' offsets summed in 32 bits (where they fit)\n" +
                   attributes + " void " + name32 + "(" + join_list(params) + ") {\n" + body +
                   "}\n\n";
    }
    gathered_ = std::move(caller_gathered);
    body = std::move(caller);
    depth_ = caller_depth;
    top_depth_ = caller_top;
    last_line_comment_ = caller_comment;
    if (fits.empty()) return line(name + "(" + join_list(args) + ");");
    line("if (" + fits + ")");
    line("  " + name32 + "(" + join_list(args) + ");");
    line("else");
    line("  " + name + "(" + join_list(args) + ");");
  }

  // `base`, or base_2, base_3, ... where a function of that name exists.
  std::string function_name(const std::string& base) {
    std::string name = base;
    for (int k = 2; !function_names_.insert(name).second; ++k)
      name = base + "_" + std::to_string(k);
    return name;
  }

  // The variables, lets, parameters and buffers a statement uses but does
  // not bind, keyed as names_ and buffers_ key them ("v:", "p:", "b:", "s:").
  struct FreeNames {
    std::map<std::string, ScalarType> values;
    std::set<std::string> buffers;
  };
  static FreeNames free_names(const Stmt& s) {
    struct Collector : lower::StmtVisitor {
      FreeNames free;
      std::multiset<std::string> bound;
      void visit_expr(const Expr& e) override {
        ir::for_each_node(e, [&](const Expr& x) {
          if (const auto* v = x.as<VarRef>()) {
            if (!bound.count("v:" + v->name))
              free.values.emplace("v:" + v->name, ScalarType::Int32);
          } else if (const auto* q = x.as<ParamRef>()) {
            if (!bound.count("p:" + q->name)) free.values.emplace("p:" + q->name, x.type());
          } else if (const auto* a = x.as<Access>()) {
            free.buffers.insert("b:" + a->producer_name());
          }
        });
      }
      void visit_node(const lower::For* n, const Stmt&) override {
        visit_expr(n->min);
        visit_expr(n->max);
        const auto it = bound.insert("v:" + n->var);
        visit(n->body);
        bound.erase(it);
      }
      void visit_node(const lower::LetStmt* n, const Stmt&) override {
        visit_expr(n->value);
        const auto it =
            bound.insert((n->value.type() == ScalarType::Int32 ? "v:" : "p:") + n->name);
        visit(n->body);
        bound.erase(it);
      }
      void visit_node(const lower::Store* n, const Stmt& self) override {
        free.buffers.insert("s:" + n->buffer);
        lower::StmtVisitor::visit_node(n, self);
      }
    } collector;
    collector.visit(s);
    return collector.free;
  }

  static std::string join_list(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& part : parts)
      out += (out.empty() ? "" : ", ") + part;
    return out;
  }

  void print_if(const lower::IfThenElse& n) {
    line("if (" + expr(n.cond) + ") {");
    nested(n.then_case);
    if (n.else_case.defined()) {
      line("} else {");
      nested(n.else_case);
    }
    line("}");
  }

  void nested(const Stmt& s) {
    names_.push();
    buffers_.emplace_back();
    ++depth_;
    print(s);
    --depth_;
    buffers_.pop_back();
    names_.pop();
  }

  void print_allocate(const lower::Allocate& n) {
    const std::size_t dims = n.extents.size();
    const std::string type(cpp_type_name(n.type));
    if (n.scope == lower::MemoryScope::PerThread) return print_per_thread(n);
    if (n.scope == lower::MemoryScope::Reuse && !n.memory.empty()) return print_shared(n);
    if (n.scope == lower::MemoryScope::Reuse) {
      const auto it = hoisted_.find(n.name);
      TRAPEZE_ASSERT(it != hoisted_.end(), "reuse of " + n.name + " outside its per-thread buffer");
      // Memory and shape come from the parallel region; only the origin moves.
      line("// " + n.name + ": origin " + tuple_text(n.origin) + " in this iteration");
      BufferNames b = it->second.names;
      for (std::size_t d = 0; d < dims; ++d) {
        b.origin.push_back(names_.declare("#", n.name + "_min" + std::to_string(d)));
        line("const int64_t " + b.origin.back() + " = " + bound(n.origin[d]) + ";");
      }
      b.pointer = names_.declare("b:" + n.producer, n.name);
      b.pointer_type = type + "*";
      line(type + "* __restrict " + b.pointer + " = static_cast<" + type + "*>(" +
           it->second.memory + ".data);");
      return print_in_scope(n, b);
    }
    if (n.scope == lower::MemoryScope::Input || n.scope == lower::MemoryScope::Output)
      return print_caller_buffer(n);
    line("// " + n.name + ": " + std::string(type_name(n.type)) + shape_text(n.extents) + " from " +
         tuple_text(n.origin) + ", " + memory_scope_name(n.scope) +
         (n.scope == lower::MemoryScope::Heap ? " (64-byte aligned)" : "") +
         (n.producer != n.name ? ", holds " + n.producer : ""));
    BufferNames b;
    b.what = buffer_description(n);
    b.producer = n.producer;
    declare_extents_and_origin(n, b);
    declare_strides(n, b);
    const std::string size = dims == 1 ? b.extent[0] : b.stride[0] + " * " + b.extent[0];
    b.pointer = names_.declare("b:" + n.producer, n.name);
    b.pointer_type = type + "*";
    TRAPEZE_ASSERT(n.scope == lower::MemoryScope::Stack || n.scope == lower::MemoryScope::Heap,
                   "a buffer of the entry's own in another scope");
    uses_heap = true;
    b.padded = true;
    const std::string memory = names_.declare("#", n.name + "_memory");
    line("tz_buffer " + memory + "(allocator, " + size + " * int64_t(sizeof(" + type + ")));");
    line("if (!" + memory + ".data) {");
    line("  tz_out_of_memory(tz_status_, " + memory + ", " +
         c_string_literal("the buffer " + b.what) + ");");
    line(parallel_depth_ == 0 ? "  " + early_exit_ : "  continue;");
    line("}");
    line(type + "* __restrict " + b.pointer + " = static_cast<" + type + "*>(" + memory +
         ".data);");
    print_in_scope(n, b);
  }

  // A buffer of an iteration in the memory of a per-thread buffer it shares
  // with others of the iteration whose lifetimes are apart from its own
  // (share_scratchpads): its own shape, the shared memory. Its pointer is
  // not __restrict here, where the others' are in scope too; the nests that
  // take it as a parameter use no other buffer of the memory.
  void print_shared(const lower::Allocate& n) {
    const auto it = hoisted_.find(n.memory);
    TRAPEZE_ASSERT(it != hoisted_.end(), n.name + " shares " + n.memory + " outside it");
    const std::string type(cpp_type_name(n.type));
    line("// " + n.name + ": " + std::string(type_name(n.type)) + shape_text(n.extents) + " from " +
         tuple_text(n.origin) + ", in the memory of " + n.memory +
         " (no other buffer there is in use meanwhile)");
    BufferNames b;
    b.what = buffer_description(n);
    b.producer = n.producer;
    declare_extents_and_origin(n, b);
    declare_strides(n, b);
    b.pointer = names_.declare("b:" + n.producer, n.name);
    b.pointer_type = type + "*";
    b.padded = true; // the shared per-thread tz_buffer's memory
    line(type + "* const " + b.pointer + " = static_cast<" + type + "*>(" + it->second.memory +
         ".data);");
    print_in_scope(n, b);
  }

  // Prints the buffer's body with `b` in scope, found by the stage it holds
  // (reads) and by its own name (stores).
  void print_in_scope(const lower::Allocate& n, const BufferNames& b) {
    buffers_.back()["b:" + n.producer] = b;
    buffers_.back()["s:" + n.name] = b;
    print(n.body);
  }

  // Declares the strides of a buffer whose extents `b` names (innermost
  // contiguous).
  void declare_strides(const lower::Allocate& n, BufferNames& b) {
    const std::size_t dims = n.extents.size();
    b.stride.assign(dims, "1");
    for (std::size_t d = dims - 1; d-- > 0;) {
      b.stride[d] = names_.declare("#", n.name + "_stride" + std::to_string(d));
      const std::string value =
          d + 2 == dims ? b.extent[d + 1] : b.stride[d + 1] + " * " + b.extent[d + 1];
      line("const int64_t " + b.stride[d] + " = " + value + ";");
    }
  }

  // Declares a buffer's extents (unless `extents` is false) and the origin of
  // its box (names, or literals for constant coordinates) into `b`.
  void declare_extents_and_origin(const lower::Allocate& n, BufferNames& b, bool extents = true) {
    const std::size_t dims = n.extents.size();
    b.extent.assign(extents ? dims : 0, "");
    for (std::size_t d = 0; extents && d < dims; ++d) {
      b.extent[d] = names_.declare("#", n.name + "_extent" + std::to_string(d));
      line("const int64_t " + b.extent[d] + " = " + bound(n.extents[d]) + ";");
    }
    for (std::size_t d = 0; d < dims; ++d) {
      if (const auto* k = n.origin[d].as<IntConst>()) {
        b.origin.push_back(std::to_string(k->value));
        continue;
      }
      b.origin.push_back(names_.declare("#", n.name + "_min" + std::to_string(d)));
      line("const int64_t " + b.origin.back() + " = " + bound(n.origin[d]) + ";");
    }
  }

  // The caller's input or output: its memory and strides are those the entry
  // bound (cpp_arguments.h), whose last dimension is contiguous.
  void print_caller_buffer(const lower::Allocate& n) {
    const bool input = n.scope == lower::MemoryScope::Input;
    const std::string argument = argument_name(input, n.slot);
    const std::string type(cpp_type_name(n.type));
    const std::size_t dims = n.extents.size();
    line("// " + n.name + ": " + std::string(type_name(n.type)) + shape_text(n.extents) + " from " +
         tuple_text(n.origin) + ", the caller's " + (input ? "input " : "output ") +
         std::to_string(n.slot) + " (" + argument + ")");
    BufferNames b;
    b.what = buffer_description(n);
    b.producer = n.producer;
    // Its extents serve the bounds checks (declared) and the choice of a
    // nest's 32-bit copy (as expressions: the entry checked the caller's
    // extents against them); the caller's strides index it.
    declare_extents_and_origin(n, b, bounds_check_);
    if (!bounds_check_)
      for (std::size_t d = 0; d < dims; ++d)
        b.extent.push_back("int64_t(" + bound(n.extents[d]) + ")");
    b.stride.assign(dims, "1");
    for (std::size_t d = 0; d + 1 < dims; ++d) {
      b.stride[d] = names_.declare("#", n.name + "_stride" + std::to_string(d));
      line("const int64_t " + b.stride[d] + " = " + argument + ".stride[" + std::to_string(d) +
           "];");
    }
    b.pointer = names_.declare("b:" + n.producer, n.name);
    b.pointer_type = (input ? "const " : "") + type + "*";
    line(b.pointer_type + " __restrict " + b.pointer + " = " + argument + ".data;");
    print_in_scope(n, b);
  }

  struct Hoisted {
    BufferNames names; ///< strides (origin and pointer are set per iteration)
    std::string memory;
  };

  const bool bounds_check_;
  const std::int64_t gather_offsets32_limit_; ///< negative: no 32-bit copies
  bool offsets32_ = false;                    ///< printing a nest's copy with 32-bit gather offsets
  std::map<std::string, Gathered> gathered_;  ///< the buffers the nest gathers from, by key
  /// The gathering loads of the vector loop being printed that read from a base pointer.
  std::map<const ir::Access*, GatherBase> gather_bases_;
  int gather_bases_count_ = 0;           ///< base pointers declared so far (their keys in names_)
  std::set<std::string> function_names_; ///< of the Outlined statements' functions
  std::string storing_; ///< the buffer the Store being printed writes (for messages)
  int locals_ = 0;      ///< values declared as locals so far (their keys in names_)
  Names names_;
  std::set<std::string> param_names_;
  std::map<std::string, Hoisted> hoisted_; ///< per-thread buffers by name
  CppExprContext context_;
  std::string params_, range_checks_;
  std::vector<std::map<std::string, BufferNames>> buffers_ = {{}};
  int depth_ = 1;     ///< of the line being printed (2 spaces each)
  int top_depth_ = 1; ///< of the entry's body
  /// How the serial part of the entry stops at an error (print_entry_body).
  std::string early_exit_ = "return tz_finish(tz_status_);";
  int parallel_depth_ = 0;
  bool last_line_comment_ = false;
};

// The C library's math functions a pipeline may call, declared rather than
// included: in C++, <math.h> brings <cmath> and costs about 0.3 s of every
// compile. The compiler still knows the exact ones by name (inlined square
// roots). The inexact ones are declared under tz_ names bound to the library's
// symbols (cpp_expr.cpp, math_function): GCC folds sinf(0.37f) with MPFR,
// correctly rounded, where glibc's sinf differs in the last place for about 1
// argument in 70, and the interpreter calls glibc's.
const char* kMathDeclarations =
    "// The C library's math functions (declared here: <math.h> is slow to compile in C++).\n"
    "extern \"C\" {\n"
    "float sqrtf(float); double sqrt(double);\n"
    "float floorf(float); double floor(double); float ceilf(float); double ceil(double);\n"
    "float fabsf(float); double fabs(double);\n"
    "// exp, log, sin, cos and pow are not correctly rounded. Called under names the compiler\n"
    "// does not know, they are never folded into a correctly rounded constant: the results are\n"
    "// the C library's, as in trapeze's interpreter, bit for bit.\n"
    "float tz_expf(float) noexcept __asm__(\"expf\") __attribute__((const));\n"
    "double tz_exp(double) noexcept __asm__(\"exp\") __attribute__((const));\n"
    "float tz_logf(float) noexcept __asm__(\"logf\") __attribute__((const));\n"
    "double tz_log(double) noexcept __asm__(\"log\") __attribute__((const));\n"
    "float tz_sinf(float) noexcept __asm__(\"sinf\") __attribute__((const));\n"
    "double tz_sin(double) noexcept __asm__(\"sin\") __attribute__((const));\n"
    "float tz_cosf(float) noexcept __asm__(\"cosf\") __attribute__((const));\n"
    "double tz_cos(double) noexcept __asm__(\"cos\") __attribute__((const));\n"
    "float tz_powf(float, float) noexcept __asm__(\"powf\") __attribute__((const));\n"
    "double tz_pow(double, double) noexcept __asm__(\"pow\") __attribute__((const));\n"
    "}\n\n";

// How generated code fails: the first failure of a call (from any thread)
// keeps its code and message; the calling thread reads the message through
// <entry>_error() after the call returns.
const char* kStatusDefinitions =
    "// Why a call failed: the first failure's code and message (later ones are dropped).\n"
    "struct tz_status {\n"
    "  int code = 0;\n"
    "  int claimed = 0;\n"
    "  char message[512] = {};\n"
    "};\n\n"
    "thread_local char tz_last_error[512];\n\n"
    "__attribute__((format(printf, 3, 4))) void tz_fail(tz_status& s, int code,\n"
    "                                                   const char* format, ...) {\n"
    "  if (__atomic_exchange_n(&s.claimed, 1, __ATOMIC_ACQ_REL)) return;\n"
    "  va_list args;\n"
    "  va_start(args, format);\n"
    "  vsnprintf(s.message, sizeof s.message, format, args);\n"
    "  va_end(args);\n"
    "  __atomic_store_n(&s.code, code, __ATOMIC_RELEASE);\n"
    "}\n\n"
    "// The call's result; its message goes to the calling thread's tz_last_error.\n"
    "int tz_finish(const tz_status& s) {\n"
    "  const int code = __atomic_load_n(&s.code, __ATOMIC_ACQUIRE);\n"
    "  memcpy(tz_last_error, code ? s.message : \"\", code ? sizeof tz_last_error : 1);\n"
    "  return code;\n"
    "}\n\n";

// The entry's size check of one box (CppPrinter::size_checks), formatted with
// max_index and max_buffer_bytes.
const char* kCheckBoxDefinition =
    "// Whether a box's bounds {{lo0, hi0, lo1, hi1, ...}} (computed in checked arithmetic: ok)\n"
    "// are what the code assumes: no overflow, every dimension within +-{0}\n"
    "// (the loops count in 32 bits), and at most {1} bytes when it is stored\n"
    "// (element_bytes 0: a reduction domain). Else the call fails, naming the box.\n"
    "template <size_t N>\n"
    "bool tz_check_box(tz_status& s, const char* what, const int64_t (&b)[N], int64_t "
    "element_bytes,\n"
    "                  const bool& ok) {{\n"
    "  if (!ok) {{\n"
    "    tz_fail(s, 3, \"%s: a bound overflows int64 for these parameter values\", what);\n"
    "    return false;\n"
    "  }}\n"
    "  int64_t bytes = element_bytes;\n"
    "  for (size_t d = 0; d < N / 2; ++d) {{\n"
    "    const long long lo = b[2 * d], hi = b[2 * d + 1];\n"
    "    if (lo < -{0}LL || hi > {0}LL) {{\n"
    "      tz_fail(s, 3, \"%s: dimension %zu is [%lld, %lld], beyond the index range [-{0}, "
    "{0}]\"\n"
    "              \" (the loops count in 32 bits)\", what, d, lo, hi);\n"
    "      return false;\n"
    "    }}\n"
    "    const int64_t extent = hi < lo ? 0 : hi - lo + 1; // empty: no loop runs\n"
    "    if (element_bytes && (__builtin_mul_overflow(bytes, extent, &bytes) || bytes > {1}LL)) "
    "{{\n"
    "      tz_fail(s, 1, \"out of memory: %s would hold more than {1} bytes\", what);\n"
    "      return false;\n"
    "    }}\n"
    "  }}\n"
    "  return true;\n"
    "}}\n\n";

// The bounds-checked build's accessor: the element at `index` (a point) of a
// buffer (of these strides) that holds the box origin + [0, extent); outside
// it, the run fails with a message naming the access, and a dummy element is
// used instead so that nothing outside the allocation is touched.
const char* kBoundsCheckDefinitions =
    "template <typename T, size_t N>\n"
    "T& tz_checked(tz_status& s, T* base, const int64_t (&index)[N], const int64_t (&origin)[N],\n"
    "              const int64_t (&extent)[N], const int64_t (&stride)[N], const char* access) "
    "{\n"
    "  int64_t offset = 0;\n"
    "  for (size_t d = 0; d < N; ++d) {\n"
    "    const int64_t i = index[d] - origin[d];\n"
    "    if (i < 0 || i >= extent[d]) {\n"
    "      char point[256] = \"\", box[256] = \"\";\n"
    "      size_t p = 0, b = 0;\n"
    "      for (size_t k = 0; k < N; ++k) {\n"
    "        p += snprintf(point + p, p < sizeof point ? sizeof point - p : 0, \"%s%lld\",\n"
    "                      k ? \", \" : \"\", (long long)index[k]);\n"
    "        b += snprintf(box + b, b < sizeof box ? sizeof box - b : 0, \"%s[%lld, %lld]\",\n"
    "                      k ? \" x \" : \"\", (long long)origin[k],\n"
    "                      (long long)(origin[k] + extent[k] - 1));\n"
    "      }\n"
    "      tz_fail(s, 2,\n"
    "              \"bounds check failed: %s at (%s): index %lld of dimension %zu is outside \"\n"
    "              \"the allocation %s\",\n"
    "              access, point, (long long)index[d], d, box);\n"
    "      // Words, for tz_load_narrow's read of a narrow element.\n"
    "      thread_local std::remove_const_t<T> dummy[sizeof(T) < 4 ? 4 / sizeof(T) : 1];\n"
    "      for (auto& d : dummy) d = std::remove_const_t<T>();\n"
    "      return dummy[0];\n"
    "    }\n"
    "    offset += i * stride[d];\n"
    "  }\n"
    "  return base[offset];\n"
    "}\n\n";

std::string stage_list(const Pipeline& p) {
  std::string s;
  for (const auto& f : p.stages()) {
    const Definition& d = f->definition();
    const std::string kind = d.is_reduction() ? "reduction" : d.cases.empty() ? "pure" : "cases";
    s += "//   " + f->name() + " (" + kind + (p.is_output(*f) ? ", output" : "") + ")\n";
  }
  return s;
}

// The state of one parallel loop (print_worker_loop) and what its workers
// and its thread do with it.
constexpr const char* kWorkerLoopDefinitions =
    R"(// One parallel loop's state: the first iteration no worker has taken, the
// iterations finished, and who still holds it (its workers and the thread that
// waits for it). The last to let go frees it: a worker may start after the loop
// is over, and then finds nothing left to take.
struct tz_loop {
  int64_t next;
  char padding[56]; // next and done on cache lines of their own
  int64_t done;
  int holders;
};

inline tz_loop* tz_loop_new(int workers) {
  tz_loop* loop = static_cast<tz_loop*>(calloc(1, sizeof(tz_loop)));
  if (loop) loop->holders = workers + 1;
  return loop;
}

inline int64_t tz_take(tz_loop* loop, int64_t iterations) {
  return __atomic_fetch_add(&loop->next, iterations, __ATOMIC_RELAXED);
}

inline void tz_finished(tz_loop* loop, int64_t iterations) {
  __atomic_fetch_add(&loop->done, iterations, __ATOMIC_RELEASE);
}

inline void tz_loop_release(tz_loop* loop) {
  if (__atomic_sub_fetch(&loop->holders, 1, __ATOMIC_ACQ_REL) == 0) free(loop);
}

// Waits until all `count` iterations are finished, then lets go of the loop.
// It spins for up to 3 ms (about as long as libgomp spins at a barrier), then
// yields its core at each look, never sleeps: a sleeping thread waits for the
// scheduler to wake it, which on a busy machine can take a whole time slice of
// another process (docs/performance.md, "Under load").
inline void tz_loop_wait(tz_loop* loop, int64_t count) {
  timespec start = {0, 0};
  for (int spin = 0; __atomic_load_n(&loop->done, __ATOMIC_ACQUIRE) < count; ++spin) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (spin < 64 || spin % 64 != 0) continue;
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (spin == 64) start = now;
    else if ((now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec) > 3000000)
      sched_yield();
  }
  tz_loop_release(loop);
}

)";

} // namespace

CppModule print_cpp(const lower::Module& module, const CodegenOptions& options) {
  const Pipeline& p = module.pipeline;
  CppModule m;
  m.entry_symbol = entry_symbol(p);
  m.signature = signature(p);
  m.header = print_header(p, m.entry_symbol);
  m.reassociated_sums = module.reassociated_sums;

  CppPrinter printer(p, options);
  // The printer recurses as deep as the statement nests (lower/large_stack.h).
  lower::run_on_large_stack([&] { printer.print_entry_body(module.body); });

  std::string& s = m.source;
  s = "// Generated by trapeze from pipeline '" + p.name() + "'.\n";
  s += "// Stages, producers first:\n" + stage_list(p);
  s += "// Entry point " + m.entry_symbol + ".\n" + abi_comment(p);
  s += "#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n"
       "#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
       "#include <time.h>\n\n"
       "#include <limits>\n#include <type_traits>\n";
  s += "#ifdef _OPENMP\n#include <omp.h>\n#endif\n\n";
  s += kMathDeclarations;
  s += kAbiTypedefs;
  const std::string helpers = cpp_helper_definitions(printer.helpers);
  s += "\nnamespace {\n\n";
  s += kStatusDefinitions;
  s += kBufferArgumentDefinitions;
  s += cpp_checked_helper_definitions();
  s += fmt::format(fmt::runtime(kCheckBoxDefinition), max_index, max_buffer_bytes);
  if (options.bounds_check) s += kBoundsCheckDefinitions;
  if (printer.uses_threads) {
    s += "inline int tz_max_threads() {\n#ifdef _OPENMP\n  return omp_get_max_threads();\n"
         "#else\n  return 1;\n#endif\n}\n\n";
  }
  if (printer.uses_chunks) {
    s += fmt::format("// A chunked loop's chunk: 1/{0} of a thread's share of the iterations, so\n"
                     "// that a thread slowed by another process holds back little of the work.\n"
                     "inline int tz_chunk(int64_t iterations, int threads) {{\n"
                     "  const int64_t chunk = iterations / (int64_t(threads) * {0});\n"
                     "  return chunk < 1 ? 1 : chunk > 1073741824 ? 1073741824 : int(chunk);\n"
                     "}}\n\n",
                     chunks_per_thread);
  }
  if (printer.uses_vector_width)
    s += "// The widest vectors a nest may use, where its schedule narrows them: GCC's\n"
         "// prefer-vector-width for x86 (other compilers choose their own).\n"
         "#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || "
         "defined(__i386__))\n"
         "#define TZ_VECTOR_BITS(bits) __attribute__((target(\"prefer-vector-width=\" #bits)))\n"
         "#else\n"
         "#define TZ_VECTOR_BITS(bits)\n"
         "#endif\n\n";
  if (printer.uses_threads) s += kWorkerLoopDefinitions;
  if (printer.uses_heap) {
    s += "// Memory for an intermediate buffer (64-byte aligned), from the caller's\n"
         "// allocator if it gave one, released at scope exit.\n"
         "struct tz_buffer {\n"
         "  const trapeze_allocator* allocator;\n"
         "  void* data;\n"
         "  size_t size;\n"
         "  // Three bytes more than asked: tz_load_narrow reads the word at the last element.\n"
         "  tz_buffer(const trapeze_allocator* a, int64_t bytes) : allocator(a) {\n"
         "    size = size_t(bytes > 0 ? (bytes + 3 + 63) / 64 * 64 : 64);\n"
         "    data = allocator ? allocator->allocate(allocator->context, size)\n"
         "                     : aligned_alloc(64, size);\n"
         "  }\n"
         "  ~tz_buffer() {\n"
         "    if (!data) return;\n"
         "    if (allocator)\n"
         "      allocator->release(allocator->context, data);\n"
         "    else\n"
         "      free(data);\n"
         "  }\n"
         "  tz_buffer(const tz_buffer&) = delete;\n"
         "  tz_buffer& operator=(const tz_buffer&) = delete;\n"
         "};\n\n"
         "inline void tz_out_of_memory(tz_status& s, const tz_buffer& b, const char* what) {\n"
         "  tz_fail(s, 1, \"out of memory: %zu bytes for %s\", b.size, what);\n"
         "}\n\n";
  }
  if (!helpers.empty()) s += helpers + "\n";
  s += printer.functions;
  s += "} // namespace\n\n";
  s += "extern \"C\" const char* " + m.entry_symbol + "_signature(void) {\n  return " +
       c_string_literal(m.signature) + ";\n}\n\n";
  s += "extern \"C\" const char* " + m.entry_symbol +
       "_error(void) {\n  return tz_last_error;\n}\n\n";
  s += "extern \"C\" " + entry_declaration(m.entry_symbol) + " {\n";
  s += printer.param_lines();
  if (p.params().empty()) s += "  (void)params;\n";
  if (p.inputs().empty()) s += "  (void)inputs;\n";
  if (printer.uses_threads) {
    s += "  const int tz_threads = num_threads > 0 ? num_threads : tz_max_threads();\n";
  } else {
    s += "  (void)num_threads;\n";
  }
  if (!printer.uses_heap) s += "  (void)allocator;\n";
  s += "  tz_status tz_status_;\n";
  s += printer.range_checks();
  s += printer.size_checks(p);
  const BufferArgumentCode arguments = printer.buffer_arguments(p);
  s += arguments.bind;
  if (printer.uses_threads) {
    s += "  // One team of threads for the whole call: one of them runs the code below in\n"
         "  // order, and each parallel loop hands its iterations to worker tasks that any\n"
         "  // thread of the team runs (docs/performance.md, \"Under load\").\n"
         "  #pragma omp parallel num_threads(tz_threads)\n"
         "  #pragma omp single nowait\n"
         "  {\n"
         "    {\n";
    s += printer.body;
    s += "    }\n"
         "  tz_done:;\n"
         "  }\n";
  } else {
    s += printer.body;
  }
  s += arguments.finish;
  s += "  return tz_finish(tz_status_);\n}\n";
  return m;
}

} // namespace trapeze::codegen
