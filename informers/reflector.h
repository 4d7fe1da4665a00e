#pragma once
// Reflector: keeps one resource of the API server mirrored, for one typed informer.
//
// It lists the resource (pages of `limit=200` joined by `continue`), then watches from the list's
// resourceVersion (`allowWatchBookmarks=true`, `timeoutSeconds` jittered in [300, 600]) and turns
// what it sees into Add / Update / Delete calls on a ReflectorHandler, in event order, on the
// reflector's own thread. Same loop as client-go's ListAndWatch:
//  - BOOKMARK events advance the resourceVersion; nothing is delivered;
//  - an ERROR event with code 410 (Gone, "too old resource version") or a 410 answer to the
//    watch request -> relist; a stream that ends -> re-watch from the last resourceVersion;
//  - connection errors, 429 / 5xx, other ERROR events and a watch line longer than the client's
//    limit (16 MiB) -> re-watch (or re-list) after a backoff;
//  - every relist waits a backoff first, as client-go's reflector waits its delayHandler between
//    ListAndWatch calls: a server that answers 410 to every watch gets a list every 0.8 s at first
//    and every 30-60 s later, not a relist storm at the client's whole QPS budget. The backoff is
//    client-go's (800 ms doubling up to 30 s, each wait jittered by up to +100%, back to 800 ms
//    after 2 min without a backoff); a stream the server ends normally (timeoutSeconds) after a
//    healthy run (an event delivered, or open for `healthy_stream`) is re-watched at once;
//  - a list's pages are bounded (client::PaginationGuard: a repeated continue token, more than a
//    million items or 100,000 pages end the attempt with an error, then the backoff); a continue
//    token that expired (410 on a page after the first) falls back once to a full list (no
//    `limit`, no `continue`), as client-go's pager does; a second 410 fails the attempt. Lists
//    send no resourceVersion (= "", a consistent read), so client-go's other fallback (a list at
//    a resourceVersion too old -> list again at "") has nothing to fall back from: a 410 on a
//    first page fails the attempt;
//  - a relist is diffed against what was delivered before: Add for new keys, Update for keys whose
//    resourceVersion changed, Delete for keys that are gone, so a handler never misses a deletion
//    that happened while the watch was down;
//  - for an optional resource (a CRD that may not be installed), a 404 on list is not an error:
//    the resource counts as present-and-empty (HasSynced becomes true, known objects are
//    deleted) and the list is polled every `absent_poll_interval` until it appears.
// Objects are decoded by a per-type DecodeFn. An object that does not decode is logged once per
// resourceVersion as `<Kind> <ns/name>: <field>: <what>` and skipped; the watch goes on.
//
// Threading: Start/Stop/HasSynced/stats may be called from any thread. Handler calls all happen on
// the reflector's thread, one at a time. Stop() interrupts the watch stream and any backoff or
// poll wait; a list request in flight finishes first (its timeout is `request_timeout`).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/value.h"
#include "base/result.h"
#include "informers/client/kube_client.h"
#include "informers/client/pagination.h"

namespace berth::informers {

// A decoded object, type-erased; Informer<T> casts it back to `const T`.
using ObjectPtr = std::shared_ptr<const void>;
using DecodeFn = std::function<Result<ObjectPtr>(const api::Value&)>;
using LogFn = std::function<void(std::string_view line)>;

// Writes `line` to stderr through base/log.h (the default LogFn).
void LogToStderr(std::string_view line);

// Clock seam for the reflector's backoff: the time, and an interruptible wait. Tests substitute
// a fake that records the waits and advances its time instead of sleeping.
class ReflectorClock {
 public:
  virtual ~ReflectorClock() = default;
  virtual std::chrono::steady_clock::time_point Now() = 0;
  // Waits d, returning early with false once `stop` is set; true when d passed. Called on the
  // reflector's thread only.
  virtual bool Wait(std::chrono::milliseconds d, const std::atomic<bool>& stop) = 0;
};

struct ReflectorOptions {
  // Kind for messages ("Pod") and the collection path ("/api/v1/pods",
  // "/apis/scheduling.x-k8s.io/v1alpha1/podgroups").
  std::string kind;
  std::string list_path;
  // A 404 on list means "not installed yet" rather than an error.
  bool optional = false;
  std::chrono::milliseconds absent_poll_interval{30000};
  // Items per list page. A page's JSON tree (~13 KB a pod) is alive while the page is decoded, on
  // top of the objects decoded so far: 200 rather than client-go's 500 took ~4 MB off the peak
  // RSS of a 3000-pod backlog, at the cost of 2.5x the list requests.
  int page_size = 200;
  // Watch timeoutSeconds is drawn uniformly from [min, max].
  std::chrono::seconds min_watch_timeout{300};
  std::chrono::seconds max_watch_timeout{600};
  // Backoff between attempts, client-go's reflector's (wait.Backoff{800ms, factor 2, jitter 1.0,
  // cap 30s}.DelayWithReset(2m)): the n-th wait is uniform in [b, b * (1 + jitter)) for
  // b = min(initial * 2^n, max); it starts from `initial_backoff` again when no wait was asked
  // for `backoff_reset`.
  std::chrono::milliseconds initial_backoff{800};
  std::chrono::milliseconds max_backoff{30000};
  double backoff_jitter = 1.0;
  std::chrono::milliseconds backoff_reset{120000};
  // A watch the server ends after this long (or after an event) is re-watched without a wait.
  std::chrono::milliseconds healthy_stream{1000};
  // Bounds of one list (see client::PaginationGuard).
  client::ListBounds list_bounds;
  // nullptr: the steady clock, and waits interrupted by Stop().
  std::shared_ptr<ReflectorClock> clock;
  // Timeout of each list page request, and of connecting + the response head of a watch.
  std::chrono::milliseconds request_timeout{60000};
  LogFn log = LogToStderr;
};

// Receives the reflector's deliveries; called only on the reflector's thread.
class ReflectorHandler {
 public:
  virtual ~ReflectorHandler() = default;
  virtual void OnAdd(const ObjectPtr& obj) = 0;
  virtual void OnUpdate(const ObjectPtr& old_obj, const ObjectPtr& new_obj) = 0;
  // `obj` is the object as last known (the DELETED event's object when it decodes).
  virtual void OnDelete(const ObjectPtr& obj) = 0;
};

// Counters for metrics; a consistent-enough snapshot (each field is read atomically).
struct ReflectorStats {
  int64_t lists = 0;           // completed lists, the first included
  int64_t relists = 0;         // completed lists after the first
  int64_t watch_restarts = 0;  // watch requests after the first of each list
  int64_t decode_errors = 0;   // objects skipped because they did not decode
  std::chrono::system_clock::time_point last_sync_time{};  // end of the last completed list
  std::string resource_version;                            // last seen
  bool absent = false;  // optional resource currently not served (404)
};

class Reflector {
 public:
  // `client` and `handler` must outlive the reflector.
  Reflector(client::KubeClient& client, ReflectorOptions options, DecodeFn decode,
            ReflectorHandler& handler);
  ~Reflector();  // Stop()s
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  // Starts the reflector thread. Calling Start twice is a no-op.
  void Start();
  // Asks the thread to stop (returns at once); Join() waits for it. Stop() = RequestStop + Join.
  void RequestStop();
  void Join();
  void Stop();

  // True once the first list has been delivered (or an optional resource found absent).
  bool HasSynced() const { return synced_.load(); }
  ReflectorStats stats() const;
  const ReflectorOptions& options() const { return options_; }

 private:
  struct Known {
    std::string resource_version;
    ObjectPtr object;
  };
  enum class WatchOutcome { kRewatch, kRelist, kStop };

  void Run();
  // Lists every page; on success delivers the diff and sets rv_. Returns false to retry later
  // (after backoff) and sets *absent for an optional resource answering 404.
  bool ListAndReplace(bool* absent);
  // The request path of one list page: `limit` and `continue`, or none for the full list that
  // follows an expired continue token.
  std::string ListPath(const std::string& cont, bool full) const;
  WatchOutcome Watch();
  // Applies one watch line; returns kRelist on a 410 ERROR, kRewatch on another ERROR, nullopt to
  // keep reading.
  std::optional<WatchOutcome> HandleLine(std::string_view line, bool* delivered);
  void Apply(const std::string& type, const api::Value& obj);
  // One listed object: its key and resourceVersion, and the decoded object when it is new or
  // changed (null when unchanged, or when it did not decode: the last good version is kept).
  struct Listed {
    std::string key;
    std::string resource_version;
    ObjectPtr object;
  };
  // A list page's items, decoded at once so that the page's JSON tree is freed before the next
  // page is read (a whole list's trees peaked at ~13 KB per pod).
  void AddListed(api::Value& page, std::vector<Listed>* listed);
  void ReplaceAll(const std::vector<Listed>& items);
  // Decodes obj, logging a failure once per key + resourceVersion.
  ObjectPtr Decode(const api::Value& obj, const std::string& key, const std::string& rv);
  // Sleeps up to d unless stopped; returns false when stopped.
  bool SleepFor(std::chrono::milliseconds d);
  // The next backoff wait (see ReflectorOptions::initial_backoff).
  std::chrono::milliseconds NextBackoff();
  std::chrono::steady_clock::time_point Now() const;
  void Log(const std::string& line) const;
  void SetResourceVersion(const std::string& rv);

  client::KubeClient& client_;
  const ReflectorOptions options_;
  const DecodeFn decode_;
  ReflectorHandler& handler_;

  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::mutex sleep_mu_;  // guards nothing; pairs with sleep_cv_ for interruptible waits
  std::condition_variable sleep_cv_;

  // Reflector-thread-only state.
  std::unordered_map<std::string, Known> known_;
  std::unordered_map<std::string, std::string> logged_bad_;  // key -> rv whose error was logged
  std::string rv_;
  std::chrono::milliseconds backoff_{0};  // the next wait before jitter; 0 = initial
  std::chrono::steady_clock::time_point last_backoff_{};
  std::mt19937_64 rng_;

  // Guarded by stats_mu_.
  mutable std::mutex stats_mu_;
  ReflectorStats stats_;
};

// "ns/name" or "name" from an object's metadata (the api::Store key).
std::string ObjectKey(const api::Value& obj);
// metadata.resourceVersion, or "".
std::string ObjectResourceVersion(const api::Value& obj);

}  // namespace berth::informers
