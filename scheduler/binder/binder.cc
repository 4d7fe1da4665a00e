#include "scheduler/binder/binder.h"

#include <exception>
#include <system_error>

#include "base/fault_counters.h"
#include "base/log.h"

namespace berth::binder {

namespace {
// The pool whose worker runs on this thread (Submit from a task never blocks).
thread_local const ThreadPoolExecutor* current_pool = nullptr;
}  // namespace

ThreadPoolExecutor::ThreadPoolExecutor(int workers, int max_workers, size_t max_queued)
    : max_workers_(std::max(1, max_workers)), max_queued_(max_queued) {
  std::lock_guard lock(mu_);
  for (int i = 0; i < std::max(1, workers); ++i) threads_.emplace_back([this] { Loop(); });
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPoolExecutor::Submit(BindingTask task) {
  {
    std::unique_lock lock(mu_);
    if (max_queued_ > 0 && current_pool != this) {
      space_cv_.wait(lock, [&] { return tasks_.size() < max_queued_; });
    }
    tasks_.push_back(std::move(task));
    ++in_flight_;
    if (idle_ < static_cast<int>(tasks_.size()) &&
        static_cast<int>(threads_.size()) < max_workers_) {
      try {
        threads_.emplace_back([this] { Loop(); });
      } catch (const std::system_error& e) {
        // Out of threads (EAGAIN): the task stays queued for the workers there are.
        BERTH_ERROR() << "binding pool: new worker: " << e.what();
      }
    }
  }
  cv_.notify_one();
}

size_t ThreadPoolExecutor::InFlight() const {
  std::lock_guard lock(mu_);
  return in_flight_;
}

void ThreadPoolExecutor::Loop() {
  current_pool = this;
  for (;;) {
    BindingTask task;
    {
      std::unique_lock lock(mu_);
      ++idle_;
      cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
      --idle_;
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    if (max_queued_ > 0) space_cv_.notify_one();
    try {
      task.run();
    } catch (const std::exception& e) {
      // Nothing may escape the worker (std::terminate); the binding cycle reports its own
      // failures, so this is a fault outside it (e.g. out of file descriptors).
      BERTH_ERROR() << "binding worker: " << e.what();
      CountFault(Fault::kRecoveredException, "binding");
    }
    std::lock_guard lock(mu_);
    --in_flight_;
  }
}

void DeferredExecutor::Submit(BindingTask task) { held_.push_back(std::move(task)); }

int DeferredExecutor::RunReady() {
  int ran = 0;
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t i = 0; i < held_.size(); ++i) {
      if (held_[i].waiting && !held_[i].waiting->TryResult()) continue;
      BindingTask task = std::move(held_[i]);
      held_.erase(held_.begin() + static_cast<long>(i));
      task.run();  // may submit or resolve other tasks
      ++ran;
      progress = true;
      break;
    }
  }
  return ran;
}

}  // namespace berth::binder
