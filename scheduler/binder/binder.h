#pragma once
// Binding executors: where binding cycles run (ARCHITECTURE.md: binding workers).
//  - ThreadPoolExecutor (daemon): N worker threads; a task may block in WaitOnPermit, so the
//    scheduling thread never waits for a binding.
//  - DeferredExecutor (`berth simulate`, tests): runs a task on the caller's thread once its
//    waiting pod (if any) is resolved; RunReady() runs every task that can run now.

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "scheduler/framework/waiting_pod.h"

namespace berth::binder {

struct BindingTask {
  std::shared_ptr<framework::WaitingPod> waiting;  // null when Permit allowed at once
  std::function<void()> run;
  bool may_block = false;  // PreBind may wait for long (CycleState::binding_may_block)
};

class BindingExecutor {
 public:
  virtual ~BindingExecutor() = default;
  virtual void Submit(BindingTask task) = 0;
};

// Elastic: starts with `workers` threads and adds one whenever a task arrives while every
// thread is busy (binding tasks may block for minutes in WaitOnPermit), up to `max_workers`.
//
// max_queued > 0 bounds the tasks waiting for a worker: Submit then blocks while that many wait
// (back-pressure on the scheduling thread, so that a backlog's assumed pods and their cycle
// states do not pile up ahead of the workers). A task that submits to its own pool never blocks
// (the workers that would drain the queue might all be waiting). Only for tasks that do not wait
// on the submitting thread (not WaitOnPermit: gangs need the scheduling thread to go on).
class ThreadPoolExecutor final : public BindingExecutor {
 public:
  explicit ThreadPoolExecutor(int workers, int max_workers = 1024, size_t max_queued = 0);
  ~ThreadPoolExecutor() override;  // finishes queued tasks, then joins
  void Submit(BindingTask task) override;
  // Tasks submitted but not finished.
  size_t InFlight() const;

 private:
  void Loop();
  mutable std::mutex mu_;  // guards tasks_, in_flight_, idle_, stop_, threads_
  std::condition_variable cv_;
  std::condition_variable space_cv_;  // a queued task was taken (max_queued_)
  std::deque<BindingTask> tasks_;
  size_t in_flight_ = 0;
  int idle_ = 0;
  const int max_workers_;
  const size_t max_queued_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Routes tasks that wait in Permit to one executor and the rest to another, so a backlog of
// ordinary bindings runs on a small fixed pool (one API connection each) while gangs waiting in
// Permit (and pods whose PreBind may block, e.g. waiting for volume provisioning) get threads of
// their own.
class SplitExecutor final : public BindingExecutor {
 public:
  SplitExecutor(BindingExecutor& plain, BindingExecutor& waiting)
      : plain_(plain), waiting_(waiting) {}
  void Submit(BindingTask task) override {
    (task.waiting || task.may_block ? waiting_ : plain_).Submit(std::move(task));
  }

 private:
  BindingExecutor& plain_;
  BindingExecutor& waiting_;
};

class DeferredExecutor final : public BindingExecutor {
 public:
  void Submit(BindingTask task) override;
  // Runs (in submission order) every held task whose waiting pod is resolved or absent,
  // repeatedly until none is ready. Returns how many ran.
  int RunReady();
  size_t Held() const { return held_.size(); }

 private:
  std::deque<BindingTask> held_;
};

}  // namespace berth::binder
