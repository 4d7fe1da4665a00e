#pragma once
// Parallelizer: runs fn(i) for i in [0, n) on a fixed pool of worker threads plus the caller
// (upstream's parallelize.Parallelizer, parallelism = KubeSchedulerConfiguration.parallelism).
// Work is handed out in chunks through an atomic counter; Until returns when every index is done.
// `stop` (may be null) lets a caller cut the loop short: once it is true no new chunks start.
// Thread-safe; Until calls from different threads are serialised.
// A scheduling cycle hands out several short jobs (filter, score) a few microseconds apart, so a
// worker that finished one spins for a short while (kSpin) before it sleeps, and the caller spins
// before it waits for the workers: waking a sleeping thread costs more than these jobs.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace berth::framework {

class Parallelizer {
 public:
  // workers = parallelism - 1 extra threads (the caller works too), capped at the hardware
  // concurrency; 1 means everything runs on the caller.
  explicit Parallelizer(int parallelism);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  void Until(int n, const std::function<void(int)>& fn, const std::atomic<bool>* stop = nullptr);
  int parallelism() const { return static_cast<int>(threads_.size()) + 1; }

 private:
  void WorkerLoop();
  void RunChunks();

  std::mutex call_mu_;  // serialises Until
  std::mutex mu_;       // guards the job fields below
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  const std::function<void(int)>* fn_ = nullptr;
  const std::atomic<bool>* stop_ = nullptr;
  int n_ = 0;
  int chunk_ = 1;
  std::atomic<uint64_t> job_id_{0};  // written under mu_; read without it by spinning workers
  std::atomic<int> active_{0};       // workers inside a job; changed under mu_
  int sleepers_ = 0;                 // workers waiting on cv_ (under mu_)
  std::atomic<bool> shutdown_{false};
  std::atomic<int> next_{0};
  std::vector<std::thread> threads_;
};

}  // namespace berth::framework
