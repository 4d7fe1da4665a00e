#include "informers/client/rate_limiter.h"

#include <algorithm>
#include <thread>

namespace berth::client {
namespace {

class SteadyClock final : public LimiterClock {
 public:
  TimePoint Now() override { return std::chrono::steady_clock::now(); }
  void SleepFor(Duration d) override { std::this_thread::sleep_for(d); }
};

}  // namespace

std::shared_ptr<LimiterClock> SteadyLimiterClock() {
  static const auto clock = std::make_shared<SteadyClock>();
  return clock;
}

TokenBucket::TokenBucket(double qps, int burst, std::shared_ptr<LimiterClock> clock)
    : qps_(qps),
      burst_(std::max(burst, 1)),
      clock_(std::move(clock)),
      tokens_(burst_),
      last_(clock_->Now()) {}

void TokenBucket::AdvanceLocked(LimiterClock::TimePoint now) {
  if (now <= last_) return;
  double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

void TokenBucket::Wait() {
  if (qps_ <= 0) return;
  LimiterClock::Duration wait{0};
  {
    std::lock_guard<std::mutex> lock(mu_);
    AdvanceLocked(clock_->Now());
    tokens_ -= 1;
    if (tokens_ < 0) {
      wait = std::chrono::duration_cast<LimiterClock::Duration>(
          std::chrono::duration<double>(-tokens_ / qps_));
      total_waited_ += wait;
    }
  }
  if (wait.count() > 0) clock_->SleepFor(wait);
}

bool TokenBucket::TryAccept() {
  if (qps_ <= 0) return true;
  std::lock_guard<std::mutex> lock(mu_);
  AdvanceLocked(clock_->Now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

LimiterClock::Duration TokenBucket::TotalWaited() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_waited_;
}

}  // namespace berth::client
