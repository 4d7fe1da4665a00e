#pragma once
// VolumeBinding's Score (upstream's volumebinding scorer.go), on since v1.37 where the
// StorageCapacityScoring gate is beta and on by default. Pure functions; thread-safe.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/reader.h"
#include "base/result.h"

namespace berth::plugins::volume_binding {

// One point of VolumeBindingArgs.shape; `score` as configured (0..10).
struct UtilizationShapePoint {
  int32_t utilization = 0;
  int32_t score = 0;
};

// Upstream v1.37's default shape: utilization 0 scores 10, utilization 100 scores 0 (so the
// node whose matching PVs leave the most room is preferred).
std::vector<UtilizationShapePoint> DefaultShape();

// Reads `shape` into `out` (left empty when absent). Errors are the Reader's.
Ok ReadShape(const api::Reader& r, std::vector<UtilizationShapePoint>* out);

// Upstream's validateFunctionShape at `path` ("...args.shape"); one message per problem.
void ValidateShape(const std::vector<UtilizationShapePoint>& shape, const std::string& path,
                   std::vector<std::string>* errs);

// Requested and capacity bytes of one StorageClass on one node.
struct StorageResource {
  int64_t requested = 0;
  int64_t capacity = 0;
};

// Upstream's buildScorerFunction: per class, the broken-linear `shape` (scores scaled x10) at
// requested*100/capacity (100 when capacity is 0 or exceeded); the node's score is the rounded
// mean over classes, 0 without classes.
int64_t ScoreClasses(const std::vector<UtilizationShapePoint>& shape,
                     const std::map<std::string, StorageResource>& classes);

}  // namespace berth::plugins::volume_binding
