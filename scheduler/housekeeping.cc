#include "scheduler/housekeeping.h"

#include <exception>

#include "base/fault_counters.h"
#include "base/log.h"

namespace berth::scheduler {

void FlushDue(Scheduler& sched) {
  sched.ExpireWaitingPods();
  sched.queue().FlushBackoffCompleted();
}

Housekeeping::Housekeeping(Scheduler& sched, HousekeepingPeriods periods,
                           std::function<void()> on_backoff_tick)
    : sched_(sched), periods_(periods), on_backoff_tick_(std::move(on_backoff_tick)) {}

Housekeeping::~Housekeeping() { Stop(); }

void Housekeeping::Start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
}

void Housekeeping::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Housekeeping::Loop() {
  auto last_backoff = std::chrono::steady_clock::now();
  auto last_leftover = last_backoff;
  std::unique_lock lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, periods_.permit);
    if (stop_) break;
    lock.unlock();
    try {
      sched_.ExpireWaitingPods();
      auto now = std::chrono::steady_clock::now();
      if (now - last_backoff >= periods_.backoff) {
        sched_.queue().FlushBackoffCompleted();
        if (on_backoff_tick_) on_backoff_tick_();
        last_backoff = now;
      }
      if (now - last_leftover >= periods_.leftover) {
        sched_.queue().FlushUnschedulableLeftover();
        last_leftover = now;
      }
    } catch (const std::exception& e) {
      // Nothing may escape the thread (std::terminate); the next tick tries again.
      BERTH_ERROR() << "housekeeping: " << e.what();
      CountFault(Fault::kRecoveredException, "housekeeping");
    }
    lock.lock();
  }
}

}  // namespace berth::scheduler
