#pragma once
// Parallelizer: runs fn(i) for i in [0, n) on a fixed pool of worker threads plus the caller
// (upstream's parallelize.Parallelizer, parallelism = KubeSchedulerConfiguration.parallelism).
// Work is handed out in chunks through an atomic counter; Until returns when every index is done.
// `stop` (may be null) lets a caller cut the loop short: once it is true no new chunks start.
// Thread-safe; Until calls from different threads are serialised.

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
  uint64_t job_id_ = 0;
  int active_ = 0;
  bool shutdown_ = false;
  std::atomic<int> next_{0};
  std::vector<std::thread> threads_;
};

}  // namespace berth::framework
