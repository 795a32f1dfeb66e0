// Expressions as C++ text with exactly the semantics of expr.h.
#pragma once

#include "trapeze/expr.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace trapeze::codegen {

/// An index of an access, printed: its text, its type (int32 or int64) and
/// whether it reads memory (a gather: its value depends on the data, so no
/// bounds check before the run has proven it).
struct PrintedIndex {
  std::string text;
  ScalarType type;
  bool data_dependent = false;
};

/// How the expression printer resolves names; supplied by the statement printer.
struct CppExprContext {
  std::function<std::string(const std::string&)> var;   ///< VarRef name -> C++ name
  std::function<std::string(const std::string&)> param; ///< ParamRef name -> C++ name
  /// Access -> `buffer[offset]`, given its indices already printed.
  std::function<std::string(const ir::Access&, const std::vector<PrintedIndex>&)> load;
  /// Receives the names of the inline helpers the text uses (tz_min, ...).
  std::set<std::string>* helpers = nullptr;
  /// Whether the text is a stage's value, whose integer +, -, * and negation
  /// may overflow for some data: each that the printer cannot prove in range
  /// (variables within +-max_index, loads within their type) wraps explicitly
  /// through a helper, as the DSL defines, instead of being C++'s undefined
  /// signed overflow. Bounds and extents computed from the parameters need
  /// no wrapping: the entry's size checks keep them far from overflow.
  bool stage_value = false;
  /// Declares a C++ local for a value computed once (print_cpp_value) and
  /// returns its name: unique among the visible names, after `base`.
  std::function<std::string(const std::string& base)> local;
};

/// The C++ text of `e`. Every node computes in its own type: narrow integer
/// operands appear only under the explicit casts of the IR, integer `/` and
/// `%` are floor division (a shift or a mask for a power-of-two constant),
/// float32 math uses the f-suffixed functions, literals are exact. Nothing
/// is undefined behaviour: division by 0 or -1, float-to-integer casts
/// (saturating, NaN to 0) and, in a stage value, integer overflow all have
/// the results docs/dsl.md defines, the interpreter's.
std::string print_cpp_expr(const Expr& e, const CppExprContext& context);

/// A value as C++: the declarations of the values it holds more than once
/// (codegen/shared_values.h), each a `const T name = ...;` statement to print
/// before the one that uses the value, and the value's text. Needs
/// context.local.
struct CppValue {
  std::vector<std::string> declarations;
  std::string value;
};
CppValue print_cpp_value(const Expr& e, const CppExprContext& context);

/// The C++ text of an int64 expression of parameters and constants (a bound
/// or an extent) in checked arithmetic: each +, -, *, negation and division
/// goes through a tz_checked_* helper that clears the bool named `ok` on
/// overflow (cpp_checked_helper_definitions), so that the entry can refuse
/// parameter values whose sizes do not fit in int64 instead of computing them.
std::string print_checked_size_expr(const Expr& e, const CppExprContext& context,
                                    const std::string& ok);

/// The tz_checked_* helpers that print_checked_size_expr's text calls.
std::string cpp_checked_helper_definitions();

/// An integer literal of type `type` (int64 and narrow types spelled with their type).
std::string cpp_int_literal(ScalarType type, std::int64_t value);
/// A float literal that reads back exactly (float32 with an f suffix).
std::string cpp_float_literal(ScalarType type, double value);

/// Identifiers the generated code uses for itself, or that C++ reserves:
/// never the name of a variable, parameter or function the printers make.
const std::set<std::string>& cpp_reserved_names();

/// "[R + 2][C + 2]": a shape, for comments.
std::string shape_text(const std::vector<Expr>& extents);
/// "(1, x + 1)": a point, for comments.
std::string tuple_text(const std::vector<Expr>& es);

/// A C string literal of `s` (quotes and backslashes escaped).
std::string c_string_literal(const std::string& s);

/// Definitions of the named helpers, in a fixed order.
std::string cpp_helper_definitions(const std::set<std::string>& used);

} // namespace trapeze::codegen
