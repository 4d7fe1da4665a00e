// The KubeSchedulerConfiguration loader: config::ParseConfig (YAML or JSON, strict decoding,
// defaults, validation).
#include <string>
#include <vector>

#include "config/load.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> known = {
      "PrioritySort",      "SchedulingGates",   "NodeUnschedulable",
      "NodeName",          "TaintToleration",   "NodeAffinity",
      "NodeResourcesFit",  "DefaultPreemption", "NodeResourcesBalancedAllocation",
      "ImageLocality",     "DefaultBinder",     "Coscheduling",
      "NodeLabel",         "NodePorts",         "InterPodAffinity",
      "PodTopologySpread", "VolumeBinding",     "DynamicResources",
      "CustomSort"};
  (void)berth::config::ParseConfig(berth::fuzz::AsView(data, size), "fuzz.yaml", known);
  return 0;
}
