// The legacy Policy loader: config::ParsePolicy (YAML or JSON).
#include <string>
#include <vector>

#include "config/policy.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> known = {
      "DefaultBinder",     "ImageLocality",
      "InterPodAffinity",  "NodeAffinity",
      "NodeLabel",         "NodeName",
      "NodePorts",         "NodeResourcesBalancedAllocation",
      "NodeResourcesFit",  "NodeUnschedulable",
      "PodTopologySpread", "PrioritySort",
      "SchedulingGates",   "SelectorSpread",
      "ServiceAffinity",   "TaintToleration",
      "VolumeBinding",     "VolumeZone"};
  (void)berth::config::ParsePolicy(berth::fuzz::AsView(data, size), "fuzz-policy.yaml", known,
                                   "berth");
  return 0;
}
