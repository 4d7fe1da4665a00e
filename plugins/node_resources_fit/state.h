#pragma once
// Internal to NodeResourcesFit: the PreFilter state Filter and the explainer read (upstream's
// preFilterState: the pod's requests, computed once per cycle). Users include
// node_resources_fit.h.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/resource.h"

namespace berth::plugins::node_resources_fit {

const framework::StateKey& PreFilterKey();

struct ScalarRequest {
  std::string name;
  int64_t quantity = 0;
  std::string reason;  // "Insufficient <name>", built once per cycle
  // A DeviceClass serves it (DRAExtendedResource): on a node that does not advertise it,
  // DynamicResources allocates it instead (upstream's shouldDelegateResourceToDRA).
  bool dra_backed = false;
};

// shouldDelegateResourceToDRA for a node: backed by a DeviceClass and not advertised there.
inline bool DelegatedToDRA(const ScalarRequest& r, const framework::Resource& alloc) {
  return r.dra_backed && alloc.Scalar(r.name) <= 0;
}

struct PreFilterState final : framework::StateData {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  bool requests_nothing = true;        // upstream's early return (before ignoring anything)
  std::vector<ScalarRequest> scalars;  // non-zero, not ignored
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

}  // namespace berth::plugins::node_resources_fit
