#pragma once
// Informer<T>: a Reflector for one kind plus the api::Store<T> it keeps current, plus the event
// handlers that hear about every change. For each delivery the store is updated first, then the
// handlers run in registration order, on the informer's own thread, in event order — so a handler
// that reads the store sees at least the object it was called with.
//
// InformerFactory builds berth's standard informers from one table (informer.cc: kind, list
// path, optional, decoder, store), or the subset a configuration needs: pods in all namespaces
// and nodes always, then PVCs, PVs, StorageClasses, CSINodes, CSIDrivers, namespaces, services,
// PDBs, the resource.k8s.io/v1 kinds (DeviceClasses, ResourceSlices, ResourceClaims,
// ResourceClaimTemplates, DeviceTaintRules), and the optional CRDs (PodGroups,
// storage.deckhouse.io: an absent CRD answers 404, is reported absent, and is picked up when it
// appears), filling the api::ClusterObjects stores.
//
// Lifetime: handlers are added before Start(); Stop() (or destruction) joins the threads, within
// ~1 s unless a list request is in flight (bounded by ReflectorOptions::request_timeout).

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include "api/decode.h"
#include "api/store.h"
#include "informers/reflector.h"

namespace berth::informers {

template <typename T>
struct EventHandlers {
  using Ptr = std::shared_ptr<const T>;
  std::function<void(const Ptr& obj)> on_add;
  std::function<void(const Ptr& old_obj, const Ptr& new_obj)> on_update;
  std::function<void(const Ptr& obj)> on_delete;
};

template <typename T>
class Informer : private ReflectorHandler {
 public:
  using Ptr = std::shared_ptr<const T>;
  using Decoder = Result<T> (*)(const api::Value&);

  // options.kind and options.list_path name the resource. `store` (may be null: the informer
  // then owns one) must outlive the informer; nobody else should write to it.
  Informer(client::KubeClient& client, ReflectorOptions options, Decoder decode,
           api::Store<T>* store = nullptr)
      : owned_store_(store == nullptr ? std::make_unique<api::Store<T>>() : nullptr),
        store_(store == nullptr ? owned_store_.get() : store),
        reflector_(client, std::move(options), MakeDecodeFn(decode), *this) {}
  ~Informer() override { reflector_.Stop(); }

  // Not thread-safe against deliveries: call before Start().
  void AddEventHandlers(EventHandlers<T> handlers) { handlers_.push_back(std::move(handlers)); }

  void Start() { reflector_.Start(); }
  void RequestStop() { reflector_.RequestStop(); }
  void Join() { reflector_.Join(); }
  void Stop() { reflector_.Stop(); }

  bool HasSynced() const { return reflector_.HasSynced(); }
  ReflectorStats stats() const { return reflector_.stats(); }
  const std::string& kind() const { return reflector_.options().kind; }
  // Safe to read from any thread.
  const api::Store<T>& store() const { return *store_; }

 private:
  static DecodeFn MakeDecodeFn(Decoder decode) {
    return [decode](const api::Value& v) -> Result<ObjectPtr> {
      auto r = decode(v);
      if (!r.ok()) return Error{r.error()};
      return ObjectPtr(std::make_shared<const T>(std::move(*r)));
    };
  }
  static Ptr Cast(const ObjectPtr& p) { return std::static_pointer_cast<const T>(p); }

  void OnAdd(const ObjectPtr& obj) override {
    Ptr p = Cast(obj);
    store_->Upsert(p);
    for (auto& h : handlers_) {
      if (h.on_add) h.on_add(p);
    }
  }
  void OnUpdate(const ObjectPtr& old_obj, const ObjectPtr& new_obj) override {
    Ptr o = Cast(old_obj);
    Ptr n = Cast(new_obj);
    store_->Upsert(n);
    for (auto& h : handlers_) {
      if (h.on_update) h.on_update(o, n);
    }
  }
  void OnDelete(const ObjectPtr& obj) override {
    Ptr p = Cast(obj);
    store_->Remove(api::Store<T>::KeyOf(*p));
    for (auto& h : handlers_) {
      if (h.on_delete) h.on_delete(p);
    }
  }

  std::unique_ptr<api::Store<T>> owned_store_;
  api::Store<T>* store_;
  std::vector<EventHandlers<T>> handlers_;
  Reflector reflector_;  // last: stopped before the members above go away
};

extern template class Informer<api::Pod>;
extern template class Informer<api::Node>;
extern template class Informer<api::PersistentVolumeClaim>;
extern template class Informer<api::PersistentVolume>;
extern template class Informer<api::StorageClass>;
extern template class Informer<api::CSINode>;
extern template class Informer<api::CSIDriver>;
extern template class Informer<api::Namespace>;
extern template class Informer<api::Service>;
extern template class Informer<api::ReplicationController>;
extern template class Informer<api::ReplicaSet>;
extern template class Informer<api::StatefulSet>;
extern template class Informer<api::PodGroup>;
extern template class Informer<api::PodDisruptionBudget>;
extern template class Informer<api::DeviceClass>;
extern template class Informer<api::ResourceSlice>;
extern template class Informer<api::ResourceClaim>;
extern template class Informer<api::ResourceClaimTemplate>;
extern template class Informer<api::DeviceTaintRule>;
extern template class Informer<api::ReplicatedStorageClass>;
extern template class Informer<api::ReplicatedStoragePool>;
extern template class Informer<api::LVMVolumeGroup>;
extern template class Informer<api::LVMLogicalVolume>;
extern template class Informer<api::ReplicatedVolume>;

// Builds and runs the standard informers. `client` and `objects` must outlive the factory.
// `base` supplies the tuning (backoff, timeouts, poll interval, log); kind, list_path and optional
// are set per informer. `kinds` (api/kinds.h names) selects the informers to run besides Pods
// and Nodes; nullopt runs them all. Accessors are for adding handlers before Start().
class InformerFactory {
 public:
  InformerFactory(client::KubeClient& client, api::ClusterObjects& objects,
                  ReflectorOptions base = {},
                  const std::optional<std::set<std::string>>& kinds = std::nullopt);
  ~InformerFactory();  // Stop()s

  Informer<api::Pod>& pods() { return *Find<api::Pod>(); }
  Informer<api::Node>& nodes() { return *Find<api::Node>(); }
  // The informer of T's kind, or nullptr when this factory does not run it.
  template <typename T>
  Informer<T>* Find() {
    auto it = informers_.find(std::type_index(typeid(T)));
    return it == informers_.end() ? nullptr : static_cast<Informer<T>*>(it->second.get());
  }

  void Start();
  // Signals every informer, then joins them all.
  void Stop();

  // The kinds this factory runs, in start order.
  std::vector<std::string> Kinds() const;
  bool HasSynced() const;
  // Kinds whose first list has not completed yet ("Pod", "Node", ...).
  std::vector<std::string> Unsynced() const;
  // Waits until every informer HasSynced. Error: `timed out after 30000ms waiting for caches to
  // sync: Pod, Node`.
  Ok WaitForCacheSync(std::chrono::milliseconds timeout) const;
  // Per-kind counters, for metrics.
  std::vector<std::pair<std::string, ReflectorStats>> Stats() const;

  // One row of the kind table (informer.cc).
  template <typename T>
  struct KindSpec {
    const char* kind;
    const char* list_path;
    bool optional;  // a CRD that may be absent
    typename Informer<T>::Decoder decode;
    api::Store<T> api::ClusterObjects::*store;  // nullptr: the informer keeps its own
  };

 private:
  struct Entry {
    std::function<void()> start, request_stop, join;
    std::function<bool()> has_synced;
    std::function<ReflectorStats()> stats;
    std::string kind;
  };
  template <typename T>
  void Add(client::KubeClient& client, const ReflectorOptions& base, api::ClusterObjects& objects,
           const KindSpec<T>& spec);

  std::vector<Entry> entries_;
  std::map<std::type_index, std::shared_ptr<void>> informers_;
};

}  // namespace berth::informers
