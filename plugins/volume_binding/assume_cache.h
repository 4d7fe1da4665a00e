#pragma once
// AssumeCache: the informer's store of PVs or PVCs overlaid with versions the scheduler assumed
// in Reserve but has not written yet (upstream's volumebinding AssumeCache). Later scheduling
// cycles see the assumed versions, so two pods do not pick the same PV and a claim being
// provisioned for one node keeps pointing there.
//
// An assumption lapses as soon as the store holds a newer resourceVersion of the object (the
// informer delivered the API server's answer) or the object is gone; Restore drops it at once
// (Unreserve). Thread-safe: Get/List from Filter workers, Assume/Restore from the scheduling
// thread or binding workers.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "api/store.h"
#include "base/result.h"
#include "plugins/volume_binding/pv_util.h"

namespace berth::plugins::volume_binding {

template <typename T>
class AssumeCache {
 public:
  using Ptr = std::shared_ptr<const T>;
  // `kind` names the objects in errors ("PersistentVolume").
  AssumeCache(const api::Store<T>& store, std::string kind)
      : store_(store), kind_(std::move(kind)) {}

  // The object as scheduling should see it; nullptr when the store does not have it.
  Ptr Get(const std::string& key) const { return Overlay(store_.Get(key), key); }
  // The store's (API server's) object, ignoring assumptions.
  Ptr GetApi(const std::string& key) const { return store_.Get(key); }

  // Every object for which keep(obj) holds, as scheduling should see them.
  std::vector<Ptr> List(const std::function<bool(const T&)>& keep) const {
    std::vector<Ptr> out;
    for (Ptr& obj : store_.List()) {
      const std::string key = api::Store<T>::KeyOf(*obj);
      Ptr seen = Overlay(std::move(obj), key);
      if (seen != nullptr && keep(*seen)) out.push_back(std::move(seen));
    }
    return out;
  }

  // Records obj (a modified copy of a stored object) as assumed. Error when the object is not in
  // the store, or when obj is older than what the cache already holds for it.
  Ok Assume(Ptr obj) {
    const std::string key = api::Store<T>::KeyOf(*obj);
    Ptr current = Get(key);
    if (current == nullptr) return Error{kind_ + " \"" + key + "\" not found"};
    const uint64_t have = ResourceVersionOf(current->metadata.resource_version);
    const uint64_t want = ResourceVersionOf(obj->metadata.resource_version);
    if (want < have) {
      return Error{kind_ + " \"" + key + "\" is out of sync (stored: " + std::to_string(have) +
                   ", assume: " + std::to_string(want) + ")"};
    }
    std::unique_lock lock(mu_);
    assumed_[key] = std::move(obj);
    return Ok();
  }

  // Drops the assumption for key, if any.
  void Restore(const std::string& key) {
    std::unique_lock lock(mu_);
    assumed_.erase(key);
  }

  size_t NumAssumed() const {
    std::shared_lock lock(mu_);
    return assumed_.size();
  }

 private:
  Ptr Overlay(Ptr api_obj, const std::string& key) const {
    if (api_obj == nullptr) return nullptr;
    std::shared_lock lock(mu_);
    if (assumed_.empty()) return api_obj;
    auto it = assumed_.find(key);
    if (it == assumed_.end()) return api_obj;
    // Same version as assumed: the informer has not seen our write yet; keep the assumption.
    if (ResourceVersionOf(api_obj->metadata.resource_version) >
        ResourceVersionOf(it->second->metadata.resource_version)) {
      return api_obj;
    }
    return it->second;
  }

  const api::Store<T>& store_;
  const std::string kind_;
  mutable std::shared_mutex mu_;  // guards assumed_
  std::map<std::string, Ptr> assumed_;
};

}  // namespace berth::plugins::volume_binding
