#pragma once
// ImageLocality (upstream's imagelocality plugin): favours nodes that already hold the pod's
// container images (init containers and image volumes' images included, as upstream v1.37).
//   score = 100 * (clamp(sum, 23Mi, 1000Mi * #images) - 23Mi) / (1000Mi * #images - 23Mi)
//   where #images = #init containers + #containers + #image volumes
//   where sum = Σ over the pod's images present on the node of size * nodesWithImage / allNodes.
// Image names are normalised (":latest" added when untagged) before the lookup.
// PreScore (a berth addition; upstream computes this inside Score) resolves the pod's normalised
// image names and the snapshot's node count once per cycle so Score allocates nothing; Score
// falls back to computing them itself when PreScore did not run. Never fails for a valid node.
// Takes no args.

#include <cstdint>
#include <memory>

#include "base/result.h"
#include "scheduler/framework/registry.h"

namespace berth::plugins::image_locality {

inline constexpr const char kName[] = "ImageLocality";

inline constexpr int64_t kMiB = 1024 * 1024;
inline constexpr int64_t kMinThreshold = 23 * kMiB;
inline constexpr int64_t kMaxContainerThreshold = 1000 * kMiB;

// Upstream's calculatePriority: clamps the summed image score and scales it to [0, 100].
int64_t CalculatePriority(int64_t sum_scores, int num_containers);

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx);

}  // namespace berth::plugins::image_locality
