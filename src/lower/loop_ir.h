// The loop IR: statements that lowering builds and code generators print.
//
// Semantics:
//  * Expressions are trapeze::Expr (expr.h). Inside a statement, a VarRef
//    names an enclosing For's variable (int32) or an int32 LetStmt; a ParamRef
//    names a pipeline parameter or an int64/float LetStmt. Lowering picks let
//    names that differ from the pipeline's parameters.
//  * An ir::Access reads the buffer of the innermost enclosing Allocate whose
//    `producer` is the accessed stage or input. The element of point
//    (i_0, ..., i_n-1) is at offset sum((i_d - origin_d) * stride_d), with
//    dense strides (the last dimension contiguous).
//  * For loops run var = min, min+1, ..., max (inclusive bounds, evaluated
//    once before the loop). A Parallel loop's iterations may run in any order
//    on several threads; a Vectorized loop's iterations are independent and
//    the loop is meant to become SIMD code.
//  * Allocate makes a buffer live for its body. Its origin and extents are
//    evaluated once where the Allocate is, so a buffer inside a tile loop
//    may have a tile-dependent origin.
//  * An Outlined statement runs its body where it stands; code generators
//    print the body as a function of its own, its free variables and buffers
//    passed in, so that a compiler optimizes each piece apart (its time grows
//    faster than linearly in a function's size). It holds no Allocate and no
//    parallel loop.
//  * A Produce is a stage still to be turned into loops: the early passes of
//    lowering place and bound it, later ones rewrite its definition, and
//    stage_loops replaces it by loop nests. None is left after stage_loops.
#pragma once

#include "trapeze/expr.h"
#include "trapeze/function.h"
#include "trapeze/schedule.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace trapeze::lower {

struct StmtNode;

/// A handle to an immutable statement node. Cheap to copy.
class Stmt {
public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}
  bool defined() const { return node_ != nullptr; }
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  /// The node as kind T, or nullptr if it is another kind.
  template <typename T> const T* as() const;
  bool same_as(const Stmt& other) const { return node_ == other.node_; }

private:
  std::shared_ptr<const StmtNode> node_;
};

// The one list of statement kinds; visitor, mutator and printers follow it.
#define TRAPEZE_FOR_EACH_STMT_NODE(X)                                                              \
  X(For)                                                                                           \
  X(Block)                                                                                         \
  X(IfThenElse)                                                                                    \
  X(Allocate)                                                                                      \
  X(Store)                                                                                         \
  X(Prefetch)                                                                                      \
  X(LetStmt)                                                                                       \
  X(Comment)                                                                                       \
  X(Outlined)                                                                                      \
  X(Produce)

enum class StmtKind : std::uint8_t {
#define TRAPEZE_STMT_ENUM_ENTRY(name) name,
  TRAPEZE_FOR_EACH_STMT_NODE(TRAPEZE_STMT_ENUM_ENTRY)
#undef TRAPEZE_STMT_ENUM_ENTRY
};

struct StmtNode {
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
  StmtNode(const StmtNode&) = delete;
  StmtNode& operator=(const StmtNode&) = delete;
  const StmtKind kind;
};

/// How a loop runs.
enum class ForKind : std::uint8_t { Serial, Parallel, Vectorized, ParallelVectorized };
/// "serial", "parallel", "vectorized", "parallel vectorized".
const char* for_kind_name(ForKind kind);
bool is_parallel(ForKind kind);
bool is_vectorized(ForKind kind);

/// for var in [min, max] (inclusive).
struct For final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::For;
  /// min and max are integer expressions; collapse (>= 1) is the number of
  /// perfectly nested loops, this one included, that a parallel loop shares
  /// its iterations over (OpenMP's collapse); schedule, how a parallel loop
  /// hands them out.
  static Stmt make(std::string var, Expr min, Expr max, ForKind kind, Stmt body, int collapse = 1,
                   ParallelSchedule schedule = ParallelSchedule::Static);
  For(std::string v, Expr lo, Expr hi, ForKind k, int c, ParallelSchedule s, Stmt b)
      : StmtNode(node_kind), var(std::move(v)), min(std::move(lo)), max(std::move(hi)), kind(k),
        collapse(c), schedule(s), body(std::move(b)) {}
  const std::string var;
  const Expr min, max;
  const ForKind kind;
  const int collapse;
  const ParallelSchedule schedule;
  const Stmt body;
};

/// Statements in order.
struct Block final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::Block;
  /// Flattens nested blocks; a single statement is returned as is.
  static Stmt make(std::vector<Stmt> stmts);
  explicit Block(std::vector<Stmt> s) : StmtNode(node_kind), stmts(std::move(s)) {}
  const std::vector<Stmt> stmts;
};

struct IfThenElse final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::IfThenElse;
  /// cond is bool; else_case may be undefined.
  static Stmt make(Expr cond, Stmt then_case, Stmt else_case = {});
  IfThenElse(Expr c, Stmt t, Stmt e)
      : StmtNode(node_kind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  const Expr cond;
  const Stmt then_case, else_case;
};

/// Where a buffer's memory comes from.
enum class MemoryScope : std::uint8_t {
  Input,  ///< the caller's input pointer number `slot`
  Output, ///< the caller's output pointer number `slot`
  Heap,   ///< allocated (64-byte aligned) where the Allocate is, freed after its body
  Stack,  ///< scratch memory of one iteration, allocated where the Allocate is
  /// Around a parallel loop (its body): one buffer per thread that runs the
  /// loop's iterations, allocated once (hoist_scratchpads). Its origin is
  /// meaningless (zeros); each iteration gives it one with a Reuse.
  PerThread,
  /// The memory of the enclosing PerThread buffer of the same name and
  /// extents, with this Allocate's origin, for its body; or, where the
  /// Allocate names a `memory`, of that PerThread buffer (a one-dimensional
  /// one of the same type, at least as large), which other buffers of the
  /// iteration share at other times (share_scratchpads).
  Reuse,
};
/// "input", "output", "heap", "stack", "per thread", "reuse".
const char* memory_scope_name(MemoryScope scope);

/// A buffer holding the values of `producer` over the box origin + [0, extents).
struct Allocate final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::Allocate;
  static Stmt make(std::string name, std::string producer, ScalarType type,
                   std::vector<Expr> origin, std::vector<Expr> extents, MemoryScope scope, int slot,
                   Stmt body, std::string memory = {});
  Allocate(std::string n, std::string p, ScalarType t, std::vector<Expr> o, std::vector<Expr> e,
           MemoryScope s, int sl, Stmt b, std::string m)
      : StmtNode(node_kind), name(std::move(n)), producer(std::move(p)), type(t),
        origin(std::move(o)), extents(std::move(e)), scope(s), slot(sl), body(std::move(b)),
        memory(std::move(m)) {}
  /// Destroys nested Allocates one after another, not by recursion.
  ~Allocate() override;
  const std::string name; ///< the buffer's name (Store targets it)
  /// The stage or input whose Accesses read it; of a per-thread buffer
  /// others share (share_scratchpads), their names, for readers.
  const std::string producer;
  const ScalarType type;
  const std::vector<Expr> origin;  ///< the point stored at offset 0 (int64)
  const std::vector<Expr> extents; ///< int64, outermost first
  const MemoryScope scope;
  const int slot; ///< index into the caller's inputs/outputs; -1 otherwise
  const Stmt body;
  /// Reuse only: the shared PerThread buffer whose memory this one takes;
  /// empty: the PerThread buffer of its own name.
  const std::string memory;
};

/// buffer(index...) = value; the index is a point (origin not subtracted).
struct Store final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::Store;
  static Stmt make(std::string buffer, std::vector<Expr> index, Expr value);
  Store(std::string b, std::vector<Expr> i, Expr v)
      : StmtNode(node_kind), buffer(std::move(b)), index(std::move(i)), value(std::move(v)) {}
  const std::string buffer;
  const std::vector<Expr> index;
  const Expr value;
};

/// A hint, with no effect on results: the cache line holding the point that
/// `access` (an ir::Access of a buffer in scope, at a point inside it) reads
/// is fetched into the cache, ahead of the loads that need it (prefetch_rows).
struct Prefetch final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::Prefetch;
  static Stmt make(Expr access);
  explicit Prefetch(Expr a) : StmtNode(node_kind), access(std::move(a)) {}
  const Expr access;
};

/// Binds `name` to `value` (evaluated once) for `body`. Refer to it with let_ref().
struct LetStmt final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::LetStmt;
  /// value must be int32, int64, float32 or float64.
  static Stmt make(std::string name, Expr value, Stmt body);
  LetStmt(std::string n, Expr v, Stmt b)
      : StmtNode(node_kind), name(std::move(n)), value(std::move(v)), body(std::move(b)) {}
  const std::string name;
  const Expr value;
  const Stmt body;
};

/// A line of explanation in the printed code.
struct Comment final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::Comment;
  static Stmt make(std::string text);
  explicit Comment(std::string t) : StmtNode(node_kind), text(std::move(t)) {}
  const std::string text;
};

/// `body`, printed as a function of its own named after `name` (the stages
/// it computes), its vectors at most `vector_bytes` wide (0: the target's
/// widest; GroupSchedule::vector_bytes).
struct Outlined final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::Outlined;
  static Stmt make(std::string name, Stmt body, int vector_bytes = 0);
  Outlined(std::string n, Stmt b, int v)
      : StmtNode(node_kind), name(std::move(n)), body(std::move(b)), vector_bytes(v) {}
  const std::string name;
  const Stmt body;
  const int vector_bytes;
};

/// One case of a Produce: the points of `box` (inclusive, within the stage's
/// domain) where `residual` holds (undefined: all of them) take `value`.
struct ProduceCase {
  std::vector<Interval> box;
  Expr residual;
  Expr value;
};

/// How a Produce's loops run.
struct ProduceLoops {
  bool parallel = false; ///< the outermost loop with more than one iteration is parallel
  ParallelSchedule schedule = ParallelSchedule::Static; ///< that loop's schedule
  bool vectorize = false; ///< the innermost loop is marked for vectorization
  /// A float sum may run by partial results (GroupSchedule::reassociate_float_sums).
  bool reassociate_float_sums = false;
};

/// A Produce computed `factor` points at a time along its dimension `dim`
/// (partition_parity): for each coarse index c, the points v = factor * c + r
/// (r = 0 .. factor - 1) of its box store values[r], which are written with
/// the int32 variable `coarse` (c) in place of v and folded, so that no test
/// of v % factor and no division v / factor is left in them.
struct ProduceParity {
  int dim = -1;
  std::int64_t factor = 1;
  std::string coarse;
  std::vector<Expr> values;
};

/// Computes `stage` at the points of `box` (one inclusive interval per stage
/// dimension; empty until the group's regions are known) into `buffer`. A
/// point takes the value of the first case that holds there, else
/// `otherwise`. A reduction's points start at its init (over the box) and its
/// updates run over the whole reduction domain.
struct Produce final : StmtNode {
  static constexpr StmtKind node_kind = StmtKind::Produce;
  static Stmt make(ir::FunctionPtr stage, std::string buffer, std::vector<Interval> box,
                   std::vector<ProduceCase> cases, Expr otherwise,
                   std::optional<ir::Reduction> reduction, ProduceLoops loops,
                   std::optional<ProduceParity> parity = std::nullopt);
  /// The stage's own definition (cases split into boxes and residuals).
  static Stmt of_definition(const ir::FunctionPtr& stage, std::string buffer,
                            std::vector<Interval> box, ProduceLoops loops);
  Produce(ir::FunctionPtr f, std::string b, std::vector<Interval> bx, std::vector<ProduceCase> c,
          Expr o, std::optional<ir::Reduction> r, ProduceLoops l, std::optional<ProduceParity> p)
      : StmtNode(node_kind), stage(std::move(f)), buffer(std::move(b)), box(std::move(bx)),
        cases(std::move(c)), otherwise(std::move(o)), reduction(std::move(r)), loops(l),
        parity(std::move(p)) {}
  const ir::FunctionPtr stage;
  const std::string buffer;
  const std::vector<Interval> box;
  const std::vector<ProduceCase> cases;
  const Expr otherwise;
  const std::optional<ir::Reduction> reduction;
  const ProduceLoops loops;
  /// Set by partition_parity; `otherwise` stays the value at any point.
  const std::optional<ProduceParity> parity;
};

/// The expression that reads a LetStmt's variable of this type.
Expr let_ref(const std::string& name, ScalarType type);

/// The loop variables and lets that `s` binds, anywhere inside it.
std::set<std::string> bound_names(const Stmt& s);

/// Walks statements; the default visits children and calls visit_expr on
/// every expression (bounds, conditions, origins, extents, indices, values).
class StmtVisitor {
public:
  virtual ~StmtVisitor() = default;
  void visit(const Stmt& s);

protected:
  virtual void visit_expr(const Expr&) {}
#define TRAPEZE_STMT_VISIT_DECL(name) virtual void visit_node(const name* node, const Stmt& self);
  TRAPEZE_FOR_EACH_STMT_NODE(TRAPEZE_STMT_VISIT_DECL)
#undef TRAPEZE_STMT_VISIT_DECL
};

/// Rebuilds statements bottom-up; the default rebuilds a node only if a child
/// or an expression (through mutate_expr) changed.
class StmtMutator {
public:
  virtual ~StmtMutator() = default;
  Stmt mutate(const Stmt& s);

protected:
  virtual Expr mutate_expr(const Expr& e) { return e; }
#define TRAPEZE_STMT_MUTATE_DECL(name) virtual Stmt mutate_node(const name* node, const Stmt& self);
  TRAPEZE_FOR_EACH_STMT_NODE(TRAPEZE_STMT_MUTATE_DECL)
#undef TRAPEZE_STMT_MUTATE_DECL
};

/// The text form of an expression (ir::to_string) with int64 literals shown
/// as plain numbers: bounds are int64 throughout, so the type adds only noise.
std::string expr_text(const Expr& e);

/// "[lo, hi] x [lo, hi]" with expr_text bounds.
std::string box_text(const std::vector<Interval>& box);

/// The statement as indented text (for --print-after and tests).
std::string to_string(const Stmt& s);

template <typename T> const T* Stmt::as() const {
  if (node_ && node_->kind == T::node_kind) return static_cast<const T*>(node_.get());
  return nullptr;
}

} // namespace trapeze::lower
