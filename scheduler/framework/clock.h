#pragma once
// Clock seam: the daemon uses the wall clock; `berth simulate` and tests use a virtual clock.

#include <atomic>
#include <chrono>
#include <thread>

namespace berth::framework {

using Duration = std::chrono::microseconds;
using TimePoint = std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
  // Blocks the calling thread for d (binding workers polling, e.g. VolumeBinding's PreBind).
  // A virtual clock advances instead of blocking.
  virtual void Sleep(Duration d) const { std::this_thread::sleep_for(d); }
};

class RealClock final : public Clock {
 public:
  TimePoint Now() const override {
    return std::chrono::time_point_cast<std::chrono::microseconds>(
        std::chrono::system_clock::now());
  }
};

// A clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint(std::chrono::seconds(1700000000)))
      : now_us_(start.time_since_epoch().count()) {}
  TimePoint Now() const override { return TimePoint(Duration(now_us_.load())); }
  void Set(TimePoint t) { now_us_.store(t.time_since_epoch().count()); }
  void Advance(Duration d) { now_us_.fetch_add(d.count()); }
  void Sleep(Duration d) const override { now_us_.fetch_add(d.count()); }

 private:
  mutable std::atomic<int64_t> now_us_;  // Sleep (const) advances it
};

inline double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace berth::framework
