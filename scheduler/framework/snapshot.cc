#include "scheduler/framework/snapshot.h"

namespace berth::framework {

bool Snapshot::IsPVCUsedByPods(std::string_view key) const {
  auto it = used_pvcs_.find(std::string(key));
  return it != used_pvcs_.end() && it->second > 0;
}

}  // namespace berth::framework
