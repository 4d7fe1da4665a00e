#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics
// (k8s.io/client-go/tools/leaderelection):
//  - a candidate GETs the lease every retry_period (jittered by up to 1.2x); it creates it (POST)
//    when absent, and takes it over (PUT, resourceVersion precondition) when its holder is empty
//    or the record has not changed for leaseDurationSeconds since this process observed it —
//    local observation time, so clock skew between nodes does not matter. A 409 on POST or PUT
//    means another candidate won the race.
//  - the leader renews (PUT renewTime) every retry_period; when no renewal succeeds within
//    renew_deadline it stops leading (on_stopped_leading) and becomes a candidate again.
//  - Stop() releases a held lease (holderIdentity "", leaseDurationSeconds 1) so a standby takes
//    over at its next retry instead of waiting for the lease to expire.
// The Lease spec field is leaseTransitions (client-go's record calls it leaderTransitions).
// Times are written as RFC 3339 MicroTime (`2024-01-01T00:00:00.000000Z`).
//
// Threading: callbacks run on the elector's own thread, one at a time, and must return promptly
// (start work elsewhere in on_started_leading; stop it in on_stopped_leading). IsLeader/GetLeader
// may be called from any thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "base/result.h"
#include "informers/client/kube_client.h"
#include "informers/reflector.h"

namespace berth::informers {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name = "berth";
  // Empty: DefaultIdentity().
  std::string identity;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  // Whether Stop() gives a held lease up.
  bool release_on_stop = true;
  std::function<void()> on_started_leading;
  // Called when leadership ends: the renew deadline passed, or Stop() while leading.
  std::function<void()> on_stopped_leading;
  // Called when the observed holder changes to a non-empty identity (this process included).
  std::function<void(const std::string& identity)> on_new_leader;
  LogFn log = LogToStderr;
};

// client-go's checks: positive durations, lease_duration > renew_deadline > 1.2 * retry_period,
// non-empty lease name and namespace. Error: `leaseDuration (10s) must be greater than
// renewDeadline (10s)` and the like.
Ok ValidateLeaderElectionConfig(const LeaderElectionConfig& config);

// "<hostname>_<32 random hex digits>", as kube-scheduler builds its identity.
std::string DefaultIdentity();

class LeaderElector {
 public:
  // Validates the config (ValidateLeaderElectionConfig) and fills the default identity.
  // `client` must outlive the elector.
  static Result<std::unique_ptr<LeaderElector>> Create(client::KubeClient& client,
                                                       LeaderElectionConfig config);
  ~LeaderElector();  // Stop()s
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts campaigning on a new thread. A second Start is a no-op.
  void Start();
  // Stops campaigning; when leading, releases the lease (release_on_stop) and calls
  // on_stopped_leading. Returns once the thread has exited (bounded by one request timeout).
  void Stop();

  bool IsLeader() const { return leading_.load(); }
  // The holder last observed ("" when unknown or released).
  std::string GetLeader() const;
  const std::string& identity() const { return config_.identity; }

 private:
  struct Record {
    std::string holder;
    int64_t lease_duration_seconds = 0;
    std::string acquire_time;
    std::string renew_time;
    int64_t leader_transitions = 0;
    bool operator==(const Record&) const = default;
  };

  LeaderElector(client::KubeClient& client, LeaderElectionConfig config);
  void Run();
  // The lease as GetLease read it.
  struct LeaseRead {
    // kFailed: the request or the decoding failed (already logged).
    enum class State { kFailed, kNotFound, kFound } state = State::kFailed;
    Record record;                 // kFound only
    std::string resource_version;  // kFound only
  };

  // One GET + (POST | PUT) round; true when this process holds the lease afterwards.
  bool TryAcquireOrRenew();
  // The steps of TryAcquireOrRenew. Failures are logged, except a 409 on POST or PUT (another
  // candidate won the race, or the leader renewed).
  LeaseRead GetLease();
  // POSTs a new lease; true when created.
  bool CreateLease(const Record& mine);
  // Notes `current` as observed (its observation time resets when it changed) and says whether
  // this process may write it: it holds it already, nobody does, or the holder has not renewed
  // for leaseDurationSeconds since we observed the record.
  bool MayTake(const Record& current);
  // PUTs `next` with the resourceVersion precondition; true when written.
  bool UpdateLease(const Record& next, const std::string& resource_version);
  // After a successful POST or PUT: this process is the observed holder, as of now.
  void ObserveOwnWrite(const Record& written);
  // A lease request: no client retries, bounded by renew_deadline.
  client::Request LeaseRequest(std::string method, std::string path, std::string body = "") const;
  void Release();
  void ObserveHolder(const std::string& holder);
  bool SleepFor(std::chrono::milliseconds d);
  std::string LeasePath() const;
  std::string LeaseBody(const Record& r, const std::string& resource_version) const;
  void Log(const std::string& line) const;

  client::KubeClient& client_;
  LeaderElectionConfig config_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> leading_{false};
  std::mutex sleep_mu_;  // guards nothing; pairs with sleep_cv_ for interruptible waits
  std::condition_variable sleep_cv_;

  // Elector-thread-only state.
  Record observed_record_;
  bool have_observed_ = false;
  std::chrono::steady_clock::time_point observed_time_{};
  std::string observed_resource_version_;
  std::mt19937_64 rng_;

  // Guarded by leader_mu_.
  mutable std::mutex leader_mu_;
  std::string reported_leader_;
};

}  // namespace berth::informers
