// The syntax tree of the pipeline text form: what the parser read, with the
// position of every construct, before any name is resolved. The builder turns
// it into a Pipeline through the DSL.
#pragma once

#include "frontend/text_form_lexer.h"
#include "trapeze/expr.h"
#include "trapeze/function.h"

#include <optional>
#include <string>
#include <vector>

namespace trapeze::text_form {

/// An expression as written. Names are not resolved yet.
struct SyntaxExpr {
  enum class Kind {
    Integer, ///< `text` holds the digits (int32 unless it is the argument of a cast)
    Float,   ///< `text` holds the literal without suffix; `float32` tells the suffix
    Name,    ///< a variable, a parameter, or a literal name (true, inf_f32, ...)
    Call,    ///< `text(operands...)`: an access, a cast or a built-in function
    Unary,   ///< `-` or `!` applied to operands[0]
    Binary,  ///< an infix operator applied to operands[0] and operands[1]
  };
  Kind kind = Kind::Integer;
  TextPosition where; ///< the literal, the name, or the operator
  TextPosition start; ///< the first token of the whole expression
  std::string text;
  bool float32 = false;
  ir::UnaryOp unary_op = ir::UnaryOp::Neg;
  ir::BinaryOp binary_op = ir::BinaryOp::Add;
  std::vector<SyntaxExpr> operands;
  int depth = 1; ///< height of the tree (bounded, so that recursion over it cannot overflow)
};

/// A name with the place it was written.
struct SyntaxName {
  std::string name;
  TextPosition where;
};

struct SyntaxInterval {
  SyntaxExpr lo, hi;
};

/// `param NAME: TYPE [= DEFAULT]`
struct SyntaxParam {
  SyntaxName name;
  SyntaxName type;
  /// `>= MIN` and `<= MAX` bounds, each an integer token with its sign.
  struct Bound {
    bool present = false;
    bool negative = false;
    Token value;
  };
  Bound min, max;
  bool has_default = false;
  TextPosition default_where;
  bool default_negative = false;
  Token default_value; ///< an Integer, a Float, or an inf_*/nan_* name
};

/// `input NAME: TYPE[EXTENT]...`
struct SyntaxInput {
  SyntaxName name;
  SyntaxName type;
  std::vector<SyntaxExpr> extents;
};

/// `case CONDITION: VALUE`
struct SyntaxCase {
  TextPosition where;
  SyntaxExpr condition, value;
};

/// `TARGET(INDICES) += VALUE` (or `min=`, `max=`)
struct SyntaxUpdate {
  SyntaxName target;
  std::vector<SyntaxExpr> indices;
  ir::ReduceOp op = ir::ReduceOp::Sum;
  SyntaxExpr value;
};

/// `init: VALUE` `reduce over R in [LO, HI], ...:` UPDATES
struct SyntaxReduction {
  TextPosition where; ///< the word `reduce`
  SyntaxExpr init;
  std::vector<SyntaxName> rvars;
  std::vector<SyntaxInterval> ranges;
  std::vector<SyntaxUpdate> updates;
};

/// `stage NAME(VARS): TYPE on DOMAIN` followed by its definition.
/// `= CONDITION(SOURCE, [VALUE,] [MARGIN, ...])`: a boundary condition;
/// without the margins, they are inferred from the stage's readers.
struct SyntaxBoundary {
  SyntaxName condition;
  SyntaxName source;
  std::optional<SyntaxExpr> value; ///< constant_exterior's
  std::vector<SyntaxExpr> margins; ///< empty: inferred
  TextPosition margins_where;      ///< the '[' (the ')' where there are none)
};

struct SyntaxStage {
  SyntaxName name;
  std::optional<SyntaxBoundary> boundary; ///< instead of variables, type, domain and definition
  std::vector<SyntaxName> vars;
  SyntaxName type;
  std::vector<SyntaxInterval> domain;
  TextPosition body_where; ///< the first token of the definition
  std::vector<SyntaxCase> cases;
  std::optional<SyntaxExpr> otherwise; ///< `= VALUE` or `default: VALUE`
  TextPosition otherwise_where;
  std::optional<SyntaxReduction> reduction;
};

/// A whole file.
struct SyntaxPipeline {
  std::optional<SyntaxName> name;
  std::vector<SyntaxParam> params;
  std::vector<SyntaxInput> inputs;
  std::vector<SyntaxStage> stages;
  std::vector<SyntaxName> outputs;
  TextPosition end; ///< the end of the file
};

} // namespace trapeze::text_form
