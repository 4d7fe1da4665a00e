#pragma once
// TokenBucket: the client-side QPS/burst limit (clientConnection.qps / burst), the same model as
// client-go's tokenBucketRateLimiter (golang.org/x/time/rate): the bucket starts full with `burst`
// tokens and refills at `qps` tokens per second; Wait() reserves a token, going into debt when
// the bucket is empty, and sleeps until the reservation matures, so concurrent waiters are served
// in arrival order. qps <= 0 means unlimited. Thread-safe.

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

namespace berth::client {

// Clock seam for the limiter: a monotonic now and a sleep. Tests substitute a fake that
// advances its time when asked to sleep.
class LimiterClock {
 public:
  using Duration = std::chrono::nanoseconds;
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~LimiterClock() = default;
  virtual TimePoint Now() = 0;
  virtual void SleepFor(Duration d) = 0;
};

// The steady clock and std::this_thread::sleep_for.
std::shared_ptr<LimiterClock> SteadyLimiterClock();

class TokenBucket {
 public:
  // burst < 1 is treated as 1 (as client-go's limiter would never admit anything otherwise).
  TokenBucket(double qps, int burst, std::shared_ptr<LimiterClock> clock = SteadyLimiterClock());

  // Blocks until a token is available and takes it.
  void Wait();
  // Takes a token if one is available now; never blocks.
  bool TryAccept();

  // Total time callers of Wait() have been told to sleep (for a metric).
  LimiterClock::Duration TotalWaited() const;
  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  // Refills tokens_ for the time since last_; requires mu_.
  void AdvanceLocked(LimiterClock::TimePoint now);

  const double qps_;
  const int burst_;
  const std::shared_ptr<LimiterClock> clock_;
  // Guarded by mu_:
  mutable std::mutex mu_;
  double tokens_;  // may go negative: reservations not yet matured
  LimiterClock::TimePoint last_;
  LimiterClock::Duration total_waited_{0};
};

}  // namespace berth::client
