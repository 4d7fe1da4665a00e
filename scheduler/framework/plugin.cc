#include "scheduler/framework/plugin.h"

#include <algorithm>

namespace berth::framework {

void DefaultNormalizeScore(int64_t max_priority, bool reverse, NodeScoreList& scores) {
  int64_t max_count = 0;
  for (const auto& s : scores) max_count = std::max(max_count, s.score);
  if (max_count == 0) {
    if (reverse) {
      for (auto& s : scores) s.score = max_priority;
    }
    return;
  }
  for (auto& s : scores) {
    int64_t v = max_priority * s.score / max_count;
    s.score = reverse ? max_priority - v : v;
  }
}

}  // namespace berth::framework
