// The recursive-descent parser of the pipeline text form. Newlines are
// whitespace: every statement starts with a keyword (or, for an update, the
// stage's name followed by '('), and no expression can continue with a word,
// so the end of each expression is always clear. Keywords are recognized only
// where a statement or a clause may start, so they remain valid names.
#include "frontend/text_form_parser.h"

#include <algorithm>
#include <array>

namespace trapeze::text_form {

namespace {

using Kind = SyntaxExpr::Kind;
using ir::BinaryOp;

// The infix operators by precedence level, loosest first (as in C and ir::to_string).
struct Level {
  std::array<std::pair<const char*, BinaryOp>, 4> ops;
  int count;
};
constexpr std::array<Level, 6> levels = {{
    {{{{"||", BinaryOp::Or}}}, 1},
    {{{{"&&", BinaryOp::And}}}, 1},
    {{{{"==", BinaryOp::EQ}, {"!=", BinaryOp::NE}}}, 2},
    {{{{"<", BinaryOp::LT}, {"<=", BinaryOp::LE}, {">", BinaryOp::GT}, {">=", BinaryOp::GE}}}, 4},
    {{{{"+", BinaryOp::Add}, {"-", BinaryOp::Sub}}}, 2},
    {{{{"*", BinaryOp::Mul}, {"/", BinaryOp::Div}, {"%", BinaryOp::Mod}}}, 3},
}};

class Parser {
public:
  Parser(const std::vector<Token>& tokens, const std::string& filename)
      : tokens_(tokens), filename_(filename) {}

  SyntaxPipeline file() {
    SyntaxPipeline p;
    while (peek().kind != TokenKind::End) {
      const Token& t = peek();
      if (t.is_word("pipeline")) {
        if (p.name)
          fail(t, "the pipeline's name is given twice (first at line " +
                      std::to_string(p.name->where.line) + ")");
        next();
        const Token& n = peek();
        if (n.kind != TokenKind::Identifier && n.kind != TokenKind::String)
          fail(n, "expected the pipeline's name after 'pipeline', found " + n.describe());
        p.name = SyntaxName{n.text, n.where};
        next();
      } else if (t.is_word("param")) {
        p.params.push_back(param());
      } else if (t.is_word("input")) {
        p.inputs.push_back(input());
      } else if (t.is_word("stage")) {
        p.stages.push_back(stage());
      } else if (t.is_word("output")) {
        next();
        p.outputs.push_back(name("after 'output'", "an output stage's name"));
        while (accept(","))
          p.outputs.push_back(name("after ','", "an output stage's name"));
      } else {
        fail(t, "expected a statement ('pipeline', 'param', 'input', 'stage' or 'output'), found " +
                    t.describe());
      }
    }
    p.end = peek().where;
    return p;
  }

private:
  const std::vector<Token>& tokens_;
  const std::string& filename_;
  std::size_t pos_ = 0;
  int nesting_ = 0; // recursion depth of the expression parser

  const Token& peek(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& next() {
    const Token& t = peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool accept(const char* symbol) {
    if (!peek().is_symbol(symbol)) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(const Token& t, const std::string& message) const {
    fail_at(filename_, t.where, message);
  }
  void expect(const char* symbol, const std::string& context) {
    if (!accept(symbol))
      fail(peek(),
           "expected '" + std::string(symbol) + "' " + context + ", found " + peek().describe());
  }
  void expect_word(const char* word, const std::string& context) {
    if (!peek().is_word(word))
      fail(peek(),
           "expected '" + std::string(word) + "' " + context + ", found " + peek().describe());
    next();
  }
  SyntaxName name(const std::string& context, const std::string& what) {
    const Token& t = peek();
    if (t.kind != TokenKind::Identifier)
      fail(t, "expected " + what + " " + context + ", found " + t.describe());
    next();
    return SyntaxName{t.text, t.where};
  }

  // param NAME: TYPE [>= ['-'] INT] [<= ['-'] INT] [= ['-'] LITERAL]
  SyntaxParam param() {
    next();
    SyntaxParam p;
    p.name = name("after 'param'", "the parameter's name");
    expect(":", "after the parameter's name");
    p.type = name("after ':'", "the parameter's type (int64, float32 or float64)");
    for (const auto& [symbol, bound] :
         {std::pair<const char*, SyntaxParam::Bound*>{">=", &p.min}, {"<=", &p.max}}) {
      if (!accept(symbol)) continue;
      bound->present = true;
      bound->negative = accept("-");
      if (peek().kind != TokenKind::Integer)
        fail(peek(), "expected an integer after '" + std::string(symbol) +
                         "' in the range of "
                         "parameter '" +
                         p.name.name + "', found " + peek().describe());
      bound->value = peek();
      next();
    }
    if (accept("=")) {
      p.has_default = true;
      p.default_where = peek().where;
      p.default_negative = accept("-");
      const Token& v = peek();
      if (v.kind != TokenKind::Integer && v.kind != TokenKind::Float &&
          v.kind != TokenKind::Identifier)
        fail(v, "expected a number as the default of parameter '" + p.name.name + "', found " +
                    v.describe());
      p.default_value = v;
      next();
    }
    return p;
  }

  // input NAME: TYPE[EXTENT]...
  SyntaxInput input() {
    next();
    SyntaxInput in;
    in.name = name("after 'input'", "the input's name");
    expect(":", "after the input's name");
    in.type = name("after ':'", "the input's element type");
    if (!peek().is_symbol("["))
      fail(peek(), "expected '[' and the first extent of input '" + in.name.name +
                       "' after its type, found " + peek().describe());
    while (accept("[")) {
      in.extents.push_back(expression());
      expect("]", "after an extent of input '" + in.name.name + "'");
    }
    return in;
  }

  SyntaxInterval interval(const std::string& what) {
    expect("[", "to open " + what);
    SyntaxInterval i;
    i.lo = expression();
    expect(",", "between the lower and the upper bound of " + what);
    i.hi = expression();
    expect("]", "to close " + what);
    return i;
  }

  // stage NAME(VARS): TYPE on [LO, HI] x ... DEFINITION
  SyntaxStage stage() {
    next();
    SyntaxStage s;
    s.name = name("after 'stage'", "the stage's name");
    if (peek().is_symbol("=")) {
      s.body_where = next().where;
      s.boundary = boundary();
      return s;
    }
    expect("(", "after the stage's name (or '=' and a boundary condition)");
    s.vars.push_back(name("after '('", "a variable"));
    while (accept(","))
      s.vars.push_back(name("after ','", "a variable"));
    expect(")", "after the stage's variables");
    expect(":", "after the stage's variables");
    s.type = name("after ':'", "the stage's element type");
    expect_word("on", "and the domain after the stage's type");
    s.domain.push_back(interval("the domain of '" + s.vars[0].name + "'"));
    while (peek().is_word("x") && peek(1).is_symbol("[")) {
      next();
      const std::size_t d = s.domain.size();
      const std::string var = d < s.vars.size() ? s.vars[d].name : "dimension " + std::to_string(d);
      s.domain.push_back(interval("the domain of '" + var + "'"));
    }
    definition(s);
    return s;
  }

  // CONDITION "(" SOURCE [ "," VALUE ] [ "," "[" MARGIN { "," MARGIN } "]" ] ")";
  // which conditions take a value is the builder's to say. Without margins
  // they are inferred from the stage's readers.
  SyntaxBoundary boundary() {
    SyntaxBoundary b;
    b.condition = name("after '='", "a boundary condition (repeat_edge, repeat_image, "
                                    "mirror_image, mirror_interior or constant_exterior)");
    expect("(", "after the boundary condition");
    b.source = name("after '('", "the input or stage the boundary condition extends");
    b.margins_where = peek().where;
    if (accept(")")) return b;
    expect(",", "after the boundary condition's source");
    if (!peek().is_symbol("[")) {
      b.value = expression();
      b.margins_where = peek().where;
      if (accept(")")) return b;
      expect(",", "after constant_exterior's value");
    }
    b.margins_where = peek().where;
    expect("[", "before the margins (one per dimension, e.g. [1, 1]; or none, to infer them)");
    b.margins.push_back(expression());
    while (accept(","))
      b.margins.push_back(expression());
    expect("]", "after the margins");
    expect(")", "after the boundary condition's margins");
    return b;
  }

  void definition(SyntaxStage& s) {
    const Token& t = peek();
    s.body_where = t.where;
    if (accept("=")) {
      s.otherwise_where = t.where;
      s.otherwise = expression();
      return;
    }
    if (t.is_word("init")) {
      s.reduction = reduction(s.name.name);
      return;
    }
    if (!t.is_word("case") && !t.is_word("default"))
      fail(t, "expected the definition of stage '" + s.name.name +
                  "' ('= VALUE', 'case', 'default' or 'init'), found " + t.describe());
    while (peek().is_word("case")) {
      SyntaxCase c;
      c.where = next().where;
      c.condition = expression();
      expect(":", "after the condition of a case");
      c.value = expression();
      s.cases.push_back(std::move(c));
    }
    if (!peek().is_word("default"))
      fail(peek(), "expected 'default: VALUE' after the cases of stage '" + s.name.name +
                       "' (the value of the points no case covers), found " + peek().describe());
    s.otherwise_where = next().where;
    expect(":", "after 'default'");
    s.otherwise = expression();
  }

  // init: VALUE reduce over R in [LO, HI], ...: UPDATE...
  SyntaxReduction reduction(const std::string& stage) {
    next();
    SyntaxReduction r;
    expect(":", "after 'init'");
    r.init = expression();
    r.where = peek().where;
    expect_word("reduce", "after the initial value of reduction '" + stage + "'");
    expect_word("over", "after 'reduce'");
    do {
      r.rvars.push_back(name("in 'reduce over'", "a reduction variable"));
      expect_word("in", "after the reduction variable '" + r.rvars.back().name + "'");
      r.ranges.push_back(interval("the range of '" + r.rvars.back().name + "'"));
    } while (accept(","));
    expect(":", "after the reduction variables' ranges");
    if (!(peek().kind == TokenKind::Identifier && peek(1).is_symbol("(")))
      fail(peek(), "expected an update such as '" + stage + "(INDEX, ...) += VALUE', found " +
                       peek().describe());
    while (peek().kind == TokenKind::Identifier && peek(1).is_symbol("("))
      r.updates.push_back(update());
    return r;
  }

  SyntaxUpdate update() {
    SyntaxUpdate u;
    u.target = name("", "a stage");
    next(); // '('
    u.indices = arguments("the target of an update");
    if (accept("+=")) {
      u.op = ir::ReduceOp::Sum;
    } else if ((peek().is_word("min") || peek().is_word("max")) && peek(1).is_symbol("=")) {
      u.op = peek().text == "min" ? ir::ReduceOp::Min : ir::ReduceOp::Max;
      next();
      next();
    } else {
      fail(peek(), "expected '+=', 'min=' or 'max=' after the target of an update, found " +
                       peek().describe());
    }
    u.value = expression();
    return u;
  }

  // After '(' : expressions separated by ',' up to ')'.
  std::vector<SyntaxExpr> arguments(const std::string& what) {
    std::vector<SyntaxExpr> args;
    if (accept(")")) return args;
    do {
      args.push_back(expression());
    } while (accept(","));
    expect(")", "to close " + what);
    return args;
  }

  // Expressions: precedence climbing over `levels`, then unary, then primary.
  SyntaxExpr expression() { return binary(0); }

  SyntaxExpr binary(std::size_t level) {
    if (level == levels.size()) return unary();
    SyntaxExpr left = binary(level + 1);
    for (;;) {
      const Token& t = peek();
      const Level& l = levels[level];
      const auto* op = std::find_if(l.ops.begin(), l.ops.begin() + l.count,
                                    [&](const auto& o) { return t.is_symbol(o.first); });
      if (op == l.ops.begin() + l.count) return left;
      next();
      SyntaxExpr right = binary(level + 1);
      SyntaxExpr node;
      node.kind = Kind::Binary;
      node.where = t.where;
      node.start = left.start;
      node.text = t.text;
      node.binary_op = op->second;
      node.operands.push_back(std::move(left));
      node.operands.push_back(std::move(right));
      left = finish(std::move(node));
    }
  }

  SyntaxExpr unary() {
    const Token& t = peek();
    if (t.is_symbol("-") || t.is_symbol("!")) {
      enter(t);
      next();
      SyntaxExpr node;
      node.kind = Kind::Unary;
      node.where = t.where;
      node.start = t.where;
      node.text = t.text;
      node.unary_op = t.text == "-" ? ir::UnaryOp::Neg : ir::UnaryOp::Not;
      node.operands.push_back(unary());
      --nesting_;
      return finish(std::move(node));
    }
    return primary();
  }

  SyntaxExpr primary() {
    const Token& t = peek();
    SyntaxExpr node;
    node.where = t.where;
    node.start = t.where;
    node.text = t.text;
    switch (t.kind) {
    case TokenKind::Integer:
      next();
      node.kind = Kind::Integer;
      return node;
    case TokenKind::Float:
      next();
      node.kind = Kind::Float;
      node.float32 = t.float32;
      return node;
    case TokenKind::Identifier:
      next();
      node.kind = Kind::Name;
      if (accept("(")) {
        enter(t);
        node.kind = Kind::Call;
        node.operands = arguments("the arguments of '" + t.text + "'");
        --nesting_;
        return finish(std::move(node));
      }
      return node;
    default: break;
    }
    if (t.is_symbol("(")) {
      enter(t);
      next();
      SyntaxExpr inner = expression();
      expect(")", "to close the '(' at line " + std::to_string(t.where.line) + ", column " +
                      std::to_string(t.where.column));
      --nesting_;
      inner.start = t.where;
      return inner;
    }
    fail(t, "expected an expression, found " + t.describe());
  }

  void enter(const Token& t) {
    if (++nesting_ > max_expression_depth) too_deep(t.where);
  }
  [[noreturn]] void too_deep(TextPosition where) const {
    fail_at(filename_, where,
            "the expression is nested more than " + std::to_string(max_expression_depth) +
                " levels deep; split it into several stages");
  }
  // Records the height of a new inner node and bounds it.
  SyntaxExpr finish(SyntaxExpr node) {
    int deepest = 0;
    for (const SyntaxExpr& o : node.operands)
      deepest = std::max(deepest, o.depth);
    node.depth = deepest + 1;
    if (node.depth > max_expression_depth) too_deep(node.where);
    return node;
  }
};

} // namespace

SyntaxPipeline parse_syntax(const std::vector<Token>& tokens, const std::string& filename) {
  return Parser(tokens, filename).file();
}

} // namespace trapeze::text_form
