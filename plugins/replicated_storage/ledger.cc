#include "plugins/replicated_storage/ledger.h"

#include <utility>

namespace berth::plugins::replicated_storage {

void ReservationLedger::Hold(const std::string& pod_uid, const std::string& pod_key,
                             std::vector<SpaceHold> holds, framework::TimePoint now) {
  std::lock_guard lock(mu_);
  if (holds.empty()) {
    by_pod_.erase(pod_uid);
    return;
  }
  by_pod_[pod_uid] = Entry{pod_key, std::move(holds), now + timeout_};
}

void ReservationLedger::Release(const std::string& pod_uid) {
  std::lock_guard lock(mu_);
  by_pod_.erase(pod_uid);
}

void ReservationLedger::Prune(framework::TimePoint now,
                              const std::function<bool(const SpaceHold&)>& landed,
                              const std::function<bool(const std::string&, const std::string&,
                                                       const std::string&)>& bound_to) {
  std::lock_guard lock(mu_);
  for (auto it = by_pod_.begin(); it != by_pod_.end();) {
    const std::string& uid = it->first;
    Entry& e = it->second;
    const bool expired = now >= e.deadline;
    std::erase_if(e.holds, [&](const SpaceHold& h) {
      return landed(h) || (expired && !bound_to(uid, e.pod_key, h.node));
    });
    it = e.holds.empty() ? by_pod_.erase(it) : std::next(it);
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
