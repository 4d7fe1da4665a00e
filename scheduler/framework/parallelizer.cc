#include "scheduler/framework/parallelizer.h"

#include <algorithm>
#include <chrono>

namespace berth::framework {

Parallelizer::Parallelizer(int parallelism) {
  int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int workers = std::max(0, std::min(parallelism, hw) - 1);
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard lock(mu_);
    shutdown_.store(true);
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

namespace {

// How long a worker (and the caller, for the workers) spins before blocking.
constexpr auto kSpin = std::chrono::microseconds(50);

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or kSpin has passed; true when done() became true.
template <typename Done>
bool SpinUntil(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (done()) return true;
    CpuRelax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return false;
  }
}

void RunRange(std::atomic<int>& next, const std::function<void(int)>& fn,
              const std::atomic<bool>* stop, int n, int chunk) {
  for (;;) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return;
    int start = next.fetch_add(chunk, std::memory_order_relaxed);
    if (start >= n) return;
    int end = std::min(n, start + chunk);
    for (int i = start; i < end; ++i) fn(i);
  }
}

}  // namespace

// The caller's share: it wrote the job fields itself and holds call_mu_, so no lock is needed.
void Parallelizer::RunChunks() { RunRange(next_, *fn_, stop_, n_, chunk_); }

void Parallelizer::WorkerLoop() {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* fn = nullptr;
    const std::atomic<bool>* stop = nullptr;
    int n = 0;
    int chunk = 1;
    SpinUntil([&] {
      return shutdown_.load(std::memory_order_relaxed) ||
             job_id_.load(std::memory_order_acquire) != seen;
    });
    {
      std::unique_lock lock(mu_);
      if (!shutdown_ && job_id_ == seen) {
        ++sleepers_;
        cv_.wait(lock, [&] { return shutdown_ || job_id_ != seen; });
        --sleepers_;
      }
      if (shutdown_) return;
      seen = job_id_;
      ++active_;
      // Read the job under the lock: a worker that wakes after its job finished must see the
      // cleared job (n_ == 0), never the fields of the next Until being written concurrently,
      // and must not touch next_ once that job has reset it.
      fn = fn_;
      stop = stop_;
      n = n_;
      chunk = chunk_;
    }
    if (fn != nullptr && n > 0) RunRange(next_, *fn, stop, n, chunk);
    {
      std::lock_guard lock(mu_);
      --active_;
    }
    done_cv_.notify_one();
  }
}

void Parallelizer::Until(int n, const std::function<void(int)>& fn, const std::atomic<bool>* stop) {
  if (n <= 0) return;
  // Small jobs are not worth waking the pool for.
  if (threads_.empty() || n < 32) {
    for (int i = 0; i < n; ++i) {
      if (stop != nullptr && stop->load(std::memory_order_relaxed)) return;
      fn(i);
    }
    return;
  }
  std::lock_guard call_lock(call_mu_);
  bool wake = false;
  {
    std::lock_guard lock(mu_);
    fn_ = &fn;
    stop_ = stop;
    n_ = n;
    // Same chunking idea as upstream: about sqrt(n) items per chunk, at least 1.
    int chunk = 1;
    while (chunk * chunk < n) ++chunk;
    chunk_ = std::max(1, std::min(chunk, n / static_cast<int>(threads_.size() + 1)));
    next_.store(0);
    ++job_id_;
    wake = sleepers_ > 0;  // spinning workers see job_id_ change by themselves
  }
  if (wake) cv_.notify_all();
  RunChunks();
  SpinUntil([&] { return active_.load(std::memory_order_acquire) == 0; });
  std::unique_lock lock(mu_);
  // Every chunk is claimed (or the stop flag is set); wait for workers still inside one.
  done_cv_.wait(lock, [&] { return active_ == 0; });
  // A worker may not have woken yet for this job; make sure it cannot run it later.
  n_ = 0;
  fn_ = nullptr;
}

}  // namespace berth::framework
