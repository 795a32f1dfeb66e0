// A reusable check that a pipeline survives its text form: print, parse, print
// again, and compare both the texts and the structures (every expression node,
// domain, definition, input and parameter). Used by the unit tests of the text
// form and by the round trip over the apps.
#pragma once

#include "trapeze/ir_visitor.h"
#include "trapeze/pipeline.h"
#include "trapeze/text_form.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

namespace trapeze::testing_support {

/// Structural equality of two expressions: same node kinds, types, values,
/// names and producers (float constants bit for bit, NaNs equal).
inline bool same_expr(const Expr& a, const Expr& b) {
  using namespace ir;
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  if (a->kind != b->kind || a.type() != b.type()) return false;
  switch (a->kind) {
  case ExprKind::IntConst: return a.as<IntConst>()->value == b.as<IntConst>()->value;
  case ExprKind::FloatConst: {
    const double x = a.as<FloatConst>()->value, y = b.as<FloatConst>()->value;
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  case ExprKind::VarRef: return a.as<VarRef>()->name == b.as<VarRef>()->name;
  case ExprKind::ParamRef: return a.as<ParamRef>()->name == b.as<ParamRef>()->name;
  case ExprKind::Cast: return same_expr(a.as<Cast>()->value, b.as<Cast>()->value);
  case ExprKind::Unary:
    return a.as<Unary>()->op == b.as<Unary>()->op &&
           same_expr(a.as<Unary>()->value, b.as<Unary>()->value);
  case ExprKind::Binary: {
    const auto *x = a.as<Binary>(), *y = b.as<Binary>();
    return x->op == y->op && same_expr(x->a, y->a) && same_expr(x->b, y->b);
  }
  case ExprKind::Select: {
    const auto *x = a.as<Select>(), *y = b.as<Select>();
    return same_expr(x->cond, y->cond) && same_expr(x->if_true, y->if_true) &&
           same_expr(x->if_false, y->if_false);
  }
  case ExprKind::Access: {
    const auto *x = a.as<Access>(), *y = b.as<Access>();
    if ((x->func == nullptr) != (y->func == nullptr)) return false;
    if (x->producer_name() != y->producer_name() || x->args.size() != y->args.size()) return false;
    for (std::size_t i = 0; i < x->args.size(); ++i)
      if (!same_expr(x->args[i], y->args[i])) return false;
    return true;
  }
  }
  return false;
}

/// Expects the same expression, printing both on failure.
#define TRAPEZE_EXPECT_SAME_EXPR(a, b, what)                                                       \
  EXPECT_TRUE(::trapeze::testing_support::same_expr((a), (b)))                                     \
      << (what) << ": " << ::trapeze::ir::to_string(a) << " vs " << ::trapeze::ir::to_string(b)

inline void expect_same_intervals(const std::vector<Interval>& a, const std::vector<Interval>& b,
                                  const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    TRAPEZE_EXPECT_SAME_EXPR(a[i].lo, b[i].lo, what + " lo " + std::to_string(i));
    TRAPEZE_EXPECT_SAME_EXPR(a[i].hi, b[i].hi, what + " hi " + std::to_string(i));
  }
}

inline void expect_same_stage(const ir::Function& a, const ir::Function& b) {
  const std::string who = "stage " + a.name();
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.type(), b.type()) << who;
  EXPECT_EQ(a.vars(), b.vars()) << who;
  expect_same_intervals(a.domain(), b.domain(), who + " domain");
  const ir::Definition &x = a.definition(), &y = b.definition();
  ASSERT_EQ(x.cases.size(), y.cases.size()) << who;
  for (std::size_t i = 0; i < x.cases.size(); ++i) {
    TRAPEZE_EXPECT_SAME_EXPR(x.cases[i].condition, y.cases[i].condition, who + " condition");
    TRAPEZE_EXPECT_SAME_EXPR(x.cases[i].value, y.cases[i].value, who + " case value");
  }
  TRAPEZE_EXPECT_SAME_EXPR(x.otherwise, y.otherwise, who + " default");
  ASSERT_EQ(x.boundary.has_value(), y.boundary.has_value()) << who;
  if (x.boundary) {
    EXPECT_EQ(x.boundary->condition, y.boundary->condition) << who;
    EXPECT_EQ(x.boundary->source, y.boundary->source) << who;
    ASSERT_EQ(x.boundary->margins.size(), y.boundary->margins.size()) << who;
    for (std::size_t i = 0; i < x.boundary->margins.size(); ++i)
      TRAPEZE_EXPECT_SAME_EXPR(x.boundary->margins[i], y.boundary->margins[i], who + " margin");
    ASSERT_EQ(x.boundary->value.defined(), y.boundary->value.defined()) << who;
    if (x.boundary->value.defined()) {
      TRAPEZE_EXPECT_SAME_EXPR(x.boundary->value, y.boundary->value, who + " exterior value");
    }
  }
  ASSERT_EQ(x.is_reduction(), y.is_reduction()) << who;
  if (!x.is_reduction()) return;
  const ir::Reduction &r = *x.reduction, &s = *y.reduction;
  EXPECT_EQ(r.rvars, s.rvars) << who;
  expect_same_intervals(r.rdom, s.rdom, who + " reduction domain");
  TRAPEZE_EXPECT_SAME_EXPR(r.init, s.init, who + " init");
  ASSERT_EQ(r.updates.size(), s.updates.size()) << who;
  for (std::size_t u = 0; u < r.updates.size(); ++u) {
    EXPECT_EQ(r.updates[u].op, s.updates[u].op) << who;
    ASSERT_EQ(r.updates[u].target.size(), s.updates[u].target.size()) << who;
    for (std::size_t i = 0; i < r.updates[u].target.size(); ++i)
      TRAPEZE_EXPECT_SAME_EXPR(r.updates[u].target[i], s.updates[u].target[i], who + " target");
    TRAPEZE_EXPECT_SAME_EXPR(r.updates[u].value, s.updates[u].value, who + " update value");
  }
}

/// Two pipelines with the same structure: name, parameters (with defaults),
/// inputs, stages in order, outputs.
inline void expect_same_pipeline(const Pipeline& a, const Pipeline& b) {
  EXPECT_EQ(a.name(), b.name());
  ASSERT_EQ(a.params().size(), b.params().size());
  for (std::size_t i = 0; i < a.params().size(); ++i) {
    const ParamInfo &p = a.params()[i], &q = b.params()[i];
    EXPECT_EQ(p.name, q.name);
    EXPECT_EQ(p.type, q.type) << p.name;
    EXPECT_EQ(p.has_default, q.has_default) << p.name;
    EXPECT_EQ(p.min, q.min) << p.name;
    EXPECT_EQ(p.max, q.max) << p.name;
    if (!p.has_default || !q.has_default) continue;
    EXPECT_EQ(p.default_value.is_float, q.default_value.is_float) << p.name;
    if (p.type == ScalarType::Int64) {
      EXPECT_EQ(p.default_value.i, q.default_value.i) << p.name;
    } else if (std::isnan(p.default_value.f)) {
      EXPECT_TRUE(std::isnan(q.default_value.f)) << p.name;
    } else if (p.type == ScalarType::Float32) {
      EXPECT_EQ(static_cast<float>(p.default_value.f), static_cast<float>(q.default_value.f))
          << p.name;
    } else {
      EXPECT_EQ(p.default_value.f, q.default_value.f) << p.name;
    }
  }
  ASSERT_EQ(a.inputs().size(), b.inputs().size());
  for (std::size_t i = 0; i < a.inputs().size(); ++i) {
    const ir::InputImage &x = *a.inputs()[i], &y = *b.inputs()[i];
    EXPECT_EQ(x.name(), y.name());
    EXPECT_EQ(x.type(), y.type()) << x.name();
    ASSERT_EQ(x.extents().size(), y.extents().size()) << x.name();
    for (std::size_t d = 0; d < x.extents().size(); ++d)
      TRAPEZE_EXPECT_SAME_EXPR(x.extents()[d], y.extents()[d], "extent of " + x.name());
  }
  ASSERT_EQ(a.stages().size(), b.stages().size());
  for (std::size_t i = 0; i < a.stages().size(); ++i)
    expect_same_stage(*a.stages()[i], *b.stages()[i]);
  ASSERT_EQ(a.outputs().size(), b.outputs().size());
  for (std::size_t i = 0; i < a.outputs().size(); ++i)
    EXPECT_EQ(a.outputs()[i]->name(), b.outputs()[i]->name());
}

/// Prints `p`, parses the text back, and expects the same text and the same
/// structure; returns the text (empty if parsing failed).
inline std::string expect_text_round_trip(const Pipeline& p) {
  const std::string text = to_text(p);
  try {
    const Pipeline q = parse_pipeline(text, p.name() + ".trapeze");
    EXPECT_EQ(to_text(q), text) << "the text form of '" << p.name() << "' does not print back";
    expect_same_pipeline(p, q);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the text form of '" << p.name() << "' does not parse: " << e.what()
                  << "\n--- text ---\n"
                  << text;
    return {};
  }
  return text;
}

} // namespace trapeze::testing_support
