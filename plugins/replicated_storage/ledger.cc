#include "plugins/replicated_storage/ledger.h"

#include <utility>

namespace berth::plugins::replicated_storage {

void ReservationLedger::Hold(const std::string& pod_uid, std::vector<SpaceHold> holds,
                             framework::TimePoint now) {
  std::lock_guard lock(mu_);
  if (holds.empty()) {
    by_pod_.erase(pod_uid);
    return;
  }
  by_pod_[pod_uid] = Entry{std::move(holds), now + timeout_};
}

void ReservationLedger::Release(const std::string& pod_uid) {
  std::lock_guard lock(mu_);
  by_pod_.erase(pod_uid);
}

void ReservationLedger::Prune(framework::TimePoint now,
                              const std::function<bool(const SpaceHold&)>& landed) {
  std::lock_guard lock(mu_);
  for (auto it = by_pod_.begin(); it != by_pod_.end();) {
    auto& holds = it->second.holds;
    if (now >= it->second.deadline) {
      holds.clear();
    } else {
      std::erase_if(holds, [&](const SpaceHold& h) { return landed(h); });
    }
    it = holds.empty() ? by_pod_.erase(it) : std::next(it);
  }
}

std::map<PoolKey, int64_t> ReservationLedger::HeldBytes(const std::string& except_pod_uid) const {
  std::lock_guard lock(mu_);
  std::map<PoolKey, int64_t> out;
  for (const auto& [uid, entry] : by_pod_) {
    if (uid == except_pod_uid) continue;
    for (const auto& h : entry.holds) out[h.pool] += h.bytes;
  }
  return out;
}

size_t ReservationLedger::Size() const {
  std::lock_guard lock(mu_);
  return by_pod_.size();
}

}  // namespace berth::plugins::replicated_storage
