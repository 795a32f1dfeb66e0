// Expressions as C++ text with exactly the semantics of expr.h.
#pragma once

#include "trapeze/expr.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace trapeze::codegen {

/// An index of an access, printed: its text and its type (int32 or int64).
struct PrintedIndex {
  std::string text;
  ScalarType type;
};

/// How the expression printer resolves names; supplied by the statement printer.
struct CppExprContext {
  std::function<std::string(const std::string&)> var;   ///< VarRef name -> C++ name
  std::function<std::string(const std::string&)> param; ///< ParamRef name -> C++ name
  /// Access -> `buffer[offset]`, given its indices already printed.
  std::function<std::string(const ir::Access&, const std::vector<PrintedIndex>&)> load;
  /// Receives the names of the inline helpers the text uses (tz_min, ...).
  std::set<std::string>* helpers = nullptr;
};

/// The C++ text of `e`. Every node computes in its own type: narrow integer
/// operands appear only under the explicit casts of the IR, integer `/` and
/// `%` are floor division (a shift or a mask for a power-of-two constant),
/// float32 math uses the f-suffixed functions, literals are exact.
std::string print_cpp_expr(const Expr& e, const CppExprContext& context);

/// An integer literal of type `type` (int64 and narrow types spelled with their type).
std::string cpp_int_literal(ScalarType type, std::int64_t value);
/// A float literal that reads back exactly (float32 with an f suffix).
std::string cpp_float_literal(ScalarType type, double value);

/// Definitions of the named helpers, in a fixed order.
std::string cpp_helper_definitions(const std::set<std::string>& used);

} // namespace trapeze::codegen
