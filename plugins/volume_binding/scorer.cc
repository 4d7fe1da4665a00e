#include "plugins/volume_binding/scorer.h"

#include <cmath>

namespace berth::plugins::volume_binding {
namespace {

constexpr int64_t kMaxUtilization = 100;
constexpr int32_t kMaxCustomPriorityScore = 10;
constexpr int64_t kMaxNodeScore = 100;

std::string Invalid(const std::string& path, int64_t value, const std::string& detail) {
  return path + ": Invalid value: " + std::to_string(value) + ": " + detail;
}

// helper.BuildBrokenLinearFunction with the scores already scaled to 0..100.
int64_t BrokenLinear(const std::vector<UtilizationShapePoint>& shape, int64_t p) {
  const int64_t scale = kMaxNodeScore / kMaxCustomPriorityScore;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) return shape[0].score * scale;
      const int64_t s0 = shape[i - 1].score * scale;
      const int64_t s1 = shape[i].score * scale;
      return s0 + (s1 - s0) * (p - shape[i - 1].utilization) /
                      (shape[i].utilization - shape[i - 1].utilization);
    }
  }
  return shape.back().score * scale;
}

}  // namespace

std::vector<UtilizationShapePoint> DefaultShape() {
  return {{0, kMaxCustomPriorityScore}, {100, 0}};
}

Ok ReadShape(const api::Reader& r, std::vector<UtilizationShapePoint>* out) {
  return r.List("shape", out, [](const api::Reader& pr, UtilizationShapePoint* point) -> Ok {
    BERTH_RETURN_IF_ERROR(pr.Int32("utilization", &point->utilization));
    return pr.Int32("score", &point->score);
  });
}

void ValidateShape(const std::vector<UtilizationShapePoint>& shape, const std::string& path,
                   std::vector<std::string>* errs) {
  if (shape.empty()) {
    errs->push_back(path + ": Required value: at least one point must be specified");
    return;
  }
  // Only the first out-of-order point is reported, as upstream.
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs->push_back(Invalid(path + "[" + std::to_string(i) + "].utilization",
                              shape[i].utilization, "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const std::string point = path + "[" + std::to_string(i) + "]";
    if (shape[i].utilization < 0 || shape[i].utilization > kMaxUtilization) {
      errs->push_back(
          Invalid(point + ".utilization", shape[i].utilization, "not in valid range [0, 100]"));
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errs->push_back(Invalid(point + ".score", shape[i].score, "not in valid range [0, 10]"));
    }
  }
}

int64_t ScoreClasses(const std::vector<UtilizationShapePoint>& shape,
                     const std::map<std::string, StorageResource>& classes) {
  if (classes.empty() || shape.empty()) return 0;
  int64_t sum = 0;
  for (const auto& [name, r] : classes) {
    if (r.capacity == 0 || r.requested > r.capacity) {
      sum += BrokenLinear(shape, kMaxUtilization);
    } else {
      sum += BrokenLinear(shape, r.requested * kMaxUtilization / r.capacity);
    }
  }
  return static_cast<int64_t>(
      std::llround(static_cast<double>(sum) / static_cast<double>(classes.size())));
}

}  // namespace berth::plugins::volume_binding
