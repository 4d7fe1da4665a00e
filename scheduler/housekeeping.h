#pragma once
// Housekeeping: the Scheduler's periodic upkeep, as upstream runs it beside the scheduling loop
// (SchedulingQueue.Run's flushBackoffQCompleted every 1 s and flushUnschedulablePodsLeftover
// every 30 s, and the waiting pods' Permit timers, polled here every 100 ms).
//
//  - FlushDue: what is due right now on the scheduler's clock: waiting pods whose Permit timed
//    out are rejected, pods whose backoff completed move to the active queue. `berth simulate`
//    calls it after advancing its virtual clock.
//  - Housekeeping::Start: a thread that runs the same on real time for `berth run` (Permit
//    expiry every `permit`, backoff flush every `backoff`, the leftover flush every `leftover`),
//    and `on_backoff_tick` (may be empty) after each backoff flush — the daemon exports its
//    informer and client counters there.
//
// Threading: the thread only calls the Scheduler's thread-safe entry points. Stop() (or the
// destructor) joins it; the Scheduler must outlive it.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "scheduler/scheduler.h"

namespace berth::scheduler {

// Expires waiting pods and flushes completed backoffs (see above).
void FlushDue(Scheduler& sched);

struct HousekeepingPeriods {
  std::chrono::milliseconds permit{100};
  std::chrono::milliseconds backoff{1000};
  std::chrono::milliseconds leftover{30000};
};

class Housekeeping {
 public:
  Housekeeping(Scheduler& sched, HousekeepingPeriods periods = {},
               std::function<void()> on_backoff_tick = nullptr);
  ~Housekeeping();  // Stop()s

  void Start();
  // Idempotent; returns after the thread has finished its current step.
  void Stop();

 private:
  void Loop();

  Scheduler& sched_;
  const HousekeepingPeriods periods_;
  const std::function<void()> on_backoff_tick_;
  std::mutex mu_;  // guards stop_
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace berth::scheduler
