#pragma once
// The daemon's API writes (ARCHITECTURE.md: writers):
//  - KubeApiWriter: framework::ApiWriter for the binding cycle — POST pods/{name}/binding with
//    the pod's uid as precondition. Runs on binding workers (blocking is fine there).
//  - KubeOutcomeSink: framework::OutcomeSink — `Scheduled` / `FailedScheduling` events
//    (events.k8s.io/v1, repeats folded into the event's series) and the PodScheduled=False
//    condition, written by its own writer threads so that neither the scheduling thread nor the
//    binding workers wait for them.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/types.h"
#include "informers/client/kube_client.h"
#include "scheduler/framework/clock.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/outcome_sink.h"

namespace berth::writers {

// Who an event or a PodScheduled patch is about: the pod's identity, without the rest of it.
// KubeOutcomeSink's queued writes keep this rather than the pod, so a backlog of events (two
// writer threads against sixteen binding workers) does not keep whole pods alive after the
// informer has replaced them.
struct PodRef {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;

  static PodRef Of(const api::Pod& pod);
  std::string Key() const { return namespace_ + "/" + name; }
};

class KubeApiWriter final : public framework::ApiWriter {
 public:
  explicit KubeApiWriter(client::KubeClient& client);

  // Success on 201, or on 409 when the pod is already bound to this very node (a retried
  // request that had landed). Status::PodGone when the API server says the pod no longer needs
  // us: 404 (deleted), or 409 and the pod read back is bound elsewhere, has another uid or is
  // gone; its message is the API server's alone (`pods "p" not found`), as client-go's error.
  // Error otherwise, with the API server's message. Never writes to any object store: the
  // scheduler's failure handler reports a gone pod (FailedScheduling, as upstream) without
  // requeueing it, and the informer reports the change.
  framework::Status Bind(const api::Pod& pod, const std::string& node) override;
  // Volume binding (kube_volume_writer.cc): merge PATCH of the PVC's annotations / the PV's
  // spec.claimRef and annotations, with metadata.resourceVersion as precondition. Success on
  // 200 (*resource_version = the new one); Error otherwise, naming the object, the HTTP code and
  // the API server's message.
  framework::Status PatchPersistentVolumeClaimAnnotations(const api::PersistentVolumeClaim& pvc,
                                                          const api::Labels& annotations,
                                                          std::string* resource_version) override;
  framework::Status PatchPersistentVolumeClaimRef(const api::PersistentVolume& pv,
                                                  const api::ObjectReference& claim,
                                                  const api::Labels& annotations,
                                                  std::string* resource_version) override;
  // Preemption. SetNominatedNodeName: strategic-merge PATCH of pods/{name}/status (null clears).
  // DeletePod: DELETE with preconditions.uid; 404 and 409 (a different pod now has the name)
  // are Success. RecordPreemptedEvent: POST an events.k8s.io/v1 Normal "Preempted" event on the
  // victim (reportingController = the preemptor's schedulerName); failures are logged.
  framework::Status SetNominatedNodeName(const api::Pod& pod, const std::string& node) override;
  framework::Status DeletePod(const api::Pod& pod) override;
  void RecordPreemptedEvent(const api::Pod& victim, const api::Pod& preemptor,
                            const std::string& node) override;
  // RecordPodEvent: the same POST for any event on a pod; failures are logged.
  void RecordPodEvent(const api::Pod& pod, const std::string& type, const std::string& reason,
                      const std::string& action, const std::string& note) override;
  // Dynamic resource allocation (kube_resource_writer.cc): PUT
  // /apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims/{name}/status with the body of
  // api::EncodeResourceClaimStatusUpdate (metadata.resourceVersion and uid as preconditions).
  // 200: the stored claim. Errors name the claim (`PUT resourceclaims ns/name/status: HTTP 409:
  // <the API server's message>`), coded as framework::ApiWriter documents: kConflict (409),
  // kNotFound (404), kUnavailable (no answer, 429, 5xx), kInvalid (anything else), kInternal (a
  // reply that does not decode).
  Result<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) override;
  Result<api::ResourceClaim> GetResourceClaim(const std::string& ns,
                                              const std::string& name) override;
  Result<api::ResourceClaim> SetResourceClaimFinalizers(const api::ResourceClaim& claim) override;
  Ok RemoveResourceClaimReservation(const api::ResourceClaim& claim,
                                    const std::string& pod_uid) override;
  // POST .../resourceclaims (201: the created claim), DELETE .../resourceclaims/{name} (404 is
  // success) and PATCH pods/{name}/status with status.extendedResourceClaimStatus; errors coded
  // as above.
  Result<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override;
  Ok DeleteResourceClaim(const std::string& ns, const std::string& name) override;
  Ok SetPodExtendedResourceClaimStatus(const api::Pod& pod,
                                       const api::PodExtendedResourceClaimStatus& status) override;
  // reportingInstance of the events this writer records (default "berth-scheduler").
  void set_reporting_instance(std::string instance) { instance_ = std::move(instance); }

 private:
  // POSTs an event built for `pod`; a failure is logged naming `reason`.
  void PostEvent(const api::Pod& pod, const api::Value& event, const std::string& reason);

  client::KubeClient& client_;
  std::string instance_ = "berth-scheduler";
  std::atomic<uint64_t> event_seq_{0};
};

class KubeOutcomeSink final : public framework::OutcomeSink {
 public:
  // reporting_instance: e.g. "berth-scheduler-<hostname>". event_retry_delay: the wait before
  // an event that could not reach the API server is tried again (upstream's 10 s; jittered by
  // up to +25%).
  KubeOutcomeSink(client::KubeClient& client, const framework::Clock& clock,
                  std::string reporting_instance, int threads = 2,
                  std::chrono::milliseconds event_retry_delay = std::chrono::seconds(10));
  ~KubeOutcomeSink() override;  // drains queued writes (bounded wait), then joins

  void Scheduled(const framework::PodInfo& pod, const std::string& node,
                 const std::string& profile) override;
  void Failed(const framework::PodInfo& pod, const std::string& reason, const std::string& message,
              const std::string& profile) override;

  // Writes not yet sent (for tests and shutdown).
  size_t Pending() const;
  // Blocks until every queued write finished or the timeout passed; true when drained.
  bool Flush(std::chrono::milliseconds timeout);

 private:
  struct SeriesState {
    std::string event_name;
    int count = 1;
    framework::TimePoint last_patch{};
  };

  void Enqueue(std::function<void()> write);
  // Runs `write` on a writer thread once `delay` has passed (unless the sink stops first).
  void EnqueueAfter(std::chrono::milliseconds delay, std::function<void()> write);
  void Loop();
  // tries: earlier attempts of this event that could not reach the API server. As upstream's
  // event broadcaster (client-go tools/events), an event that cannot be sent is tried again
  // after 10 s (±25%), up to 12 tries in all; one the server refuses is dropped with a warning.
  void RecordEvent(const PodRef& pod, const std::string& type, const std::string& reason,
                   const std::string& action, const std::string& note,
                   const std::string& controller, int tries = 0);
  void PatchCondition(const PodRef& pod, const std::string& reason, const std::string& message);

  client::KubeClient& client_;
  const framework::Clock& clock_;
  const std::string instance_;
  const std::chrono::milliseconds event_retry_delay_;

  mutable std::mutex mu_;  // guards queue_, delayed_, busy_, stop_
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<std::function<void()>> queue_;
  // Writes waiting for their time (event retries), earliest first; not counted by Pending().
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>> delayed_;
  int busy_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;

  std::mutex series_mu_;  // guards series_, last_condition_
  // "<uid>/<reason>/<note>" -> the event already written for it.
  std::map<std::string, SeriesState> series_;
  // uid -> "<reason>/<message>" last written to the PodScheduled condition.
  std::map<std::string, std::string> last_condition_;
  std::atomic<uint64_t> seq_{0};
};

}  // namespace berth::writers
