#include "plugins/coscheduling/group_cache.h"

namespace berth::plugins::coscheduling {

void GroupCache::MarkFailed(const std::string& group, framework::TimePoint now) {
  std::lock_guard lock(mu_);
  entries_[group].last_failed = now;
}

void GroupCache::ClearFailed(const std::string& group) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(group);
  if (it != entries_.end()) it->second.last_failed.reset();
}

std::optional<framework::TimePoint> GroupCache::LastFailed(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(group);
  return it == entries_.end() ? std::nullopt : it->second.last_failed;
}

void GroupCache::MarkReleased(const std::string& group, framework::TimePoint now) {
  std::lock_guard lock(mu_);
  entries_[group].last_released = now;
}

std::optional<framework::TimePoint> GroupCache::LastReleased(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(group);
  return it == entries_.end() ? std::nullopt : it->second.last_released;
}

void GroupCache::Permit(const std::string& group, framework::TimePoint until) {
  std::lock_guard lock(mu_);
  entries_[group].permitted_until = until;
}

void GroupCache::ClearPermitted(const std::string& group) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(group);
  if (it != entries_.end()) it->second.permitted_until.reset();
}

bool GroupCache::IsPermitted(const std::string& group, framework::TimePoint now) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(group);
  return it != entries_.end() && it->second.permitted_until && now < *it->second.permitted_until;
}

void GroupCache::Backoff(const std::string& group, framework::TimePoint until,
                         framework::TimePoint now) {
  std::lock_guard lock(mu_);
  Entry& e = entries_[group];
  if (e.backoff_until && now < *e.backoff_until) return;
  e.backoff_until = until;
}

bool GroupCache::IsBackedOff(const std::string& group, framework::TimePoint now) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(group);
  return it != entries_.end() && it->second.backoff_until && now < *it->second.backoff_until;
}

void GroupCache::Prune(const std::function<bool(const std::string& group)>& exists) {
  std::lock_guard lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (exists(it->first)) {
      ++it;
    } else {
      it = entries_.erase(it);
    }
  }
}

size_t GroupCache::Size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace berth::plugins::coscheduling
