// DecisionCache: each candidate group is costed once.
#include "autoschedule/cost_model.h"

namespace trapeze::autoschedule {

std::size_t DecisionCache::Hash::operator()(const std::vector<int>& v) const {
  std::size_t h = 0x9e3779b97f4a7c15ull;
  for (int x : v)
    h = (h ^ static_cast<std::size_t>(x)) * 0x100000001b3ull;
  return h;
}

const GroupDecision& DecisionCache::get(const std::vector<int>& members) {
  if (const auto it = decisions_.find(members); it != decisions_.end()) return it->second;
  GroupDecision d = model_.evaluate(members);
  costs_.emplace(members, d.cost);
  return decisions_.emplace(members, std::move(d)).first->second;
}

double DecisionCache::cost(const std::vector<int>& members) {
  if (const auto it = costs_.find(members); it != costs_.end()) return it->second;
  return costs_.emplace(members, model_.cost(members)).first->second;
}

} // namespace trapeze::autoschedule
