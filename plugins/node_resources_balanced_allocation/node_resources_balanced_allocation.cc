#include "plugins/node_resources_balanced_allocation/node_resources_balanced_allocation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "base/saturating.h"
#include "plugins/common/resource_allocation.h"
#include "scheduler/framework/args.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/resource.h"

namespace berth::plugins::node_resources_balanced_allocation {
namespace {

using framework::Status;

// The resource classification and allocatable/requested arithmetic are upstream's
// resource_allocation.go, shared with NodeResourcesFit (plugins/common).
using Kind = common::ResourceKind;
using Spec = common::ScoredResource;
using common::KindOf;

const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScoreNodeResourcesBalancedAllocation");
  return key;
}

struct PreScoreState final : framework::StateData {
  std::vector<int64_t> pod_requests;  // same order as the configured resources
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// BalancedAllocation scores with plain requests (upstream's useRequested = true).
constexpr bool kUseRequested = true;

int64_t PodRequest(const Spec& spec, const framework::PodInfo& pod) {
  return common::PodRequest(spec, pod, kUseRequested);
}

// Upstream's balancedResourceScore: int((1 - std) * 100) over the `n` fractions, summed in
// upstream's order.
int64_t BalanceScore(const double* f, size_t n) {
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::abs((f[0] - f[1]) / 2);
  } else if (n > 2) {
    double total = 0;
    for (size_t i = 0; i < n; ++i) total += f[i];
    const double mean = total / static_cast<double>(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += (f[i] - mean) * (f[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(framework::kMaxNodeScore));
}

// Resources scored on the stack; more (a config listing many) use the heap.
constexpr size_t kInlineResources = 8;

class BalancedAllocation final : public framework::PreScorePlugin, public framework::ScorePlugin {
 public:
  explicit BalancedAllocation(std::vector<Spec> specs) : specs_(std::move(specs)) {}

  std::string_view Name() const override { return kName; }

  Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                  const std::vector<const framework::NodeInfo*>&) const override {
    auto s = std::make_unique<PreScoreState>();
    s->pod_requests.reserve(specs_.size());
    bool best_effort = true;
    for (const auto& spec : specs_) {
      s->pod_requests.push_back(PodRequest(spec, pod));
      if (s->pod_requests.back() != 0) best_effort = false;
    }
    // Scoring best-effort pods by balance would pile them onto one node (kubernetes#129138).
    if (best_effort) return Status::Skip();
    state.Write(PreScoreKey(), std::move(s));
    return Status();
  }

  Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
               const framework::NodeInfo& node, int64_t* score) const override {
    *score = 0;
    if (specs_.empty()) return Status::Error("resources not found");
    const auto* s = state.Read<PreScoreState>(PreScoreKey());
    auto request = [&](size_t i) {
      return s != nullptr ? s->pod_requests[i] : PodRequest(specs_[i], pod);
    };
    if (s == nullptr) {
      bool best_effort = true;
      for (size_t i = 0; i < specs_.size() && best_effort; ++i) best_effort = request(i) == 0;
      if (best_effort) return Status();
    }
    // Upstream v1.37's balancedResourceScorer: how much placing the pod improves the node's
    // balance. Both scores lie in [50, 100], so the result stays in [50, 100]: 75 for no change.
    // The fractions without and with the pod come from one pass over the resources.
    std::array<double, kInlineResources> without_buf, with_buf;
    std::vector<double> without_heap, with_heap;
    double* without = without_buf.data();
    double* with = with_buf.data();
    if (specs_.size() > kInlineResources) {
      without_heap.resize(specs_.size());
      with_heap.resize(specs_.size());
      without = without_heap.data();
      with = with_heap.data();
    }
    size_t n = 0;
    for (size_t i = 0; i < specs_.size(); ++i) {
      int64_t alloc = 0, allocated = 0;
      const int64_t pod_request = request(i);
      if (!common::AllocatableAndAllocated(specs_[i], node, pod_request, kUseRequested, &alloc,
                                           &allocated)) {
        continue;
      }
      const double capacity = static_cast<double>(alloc);
      without[n] = std::min(1.0, static_cast<double>(allocated) / capacity);
      with[n] = std::min(1.0, static_cast<double>(SatAdd(allocated, pod_request)) / capacity);
      ++n;
    }
    const int64_t score_with = BalanceScore(with, n);
    const int64_t score_without = BalanceScore(without, n);
    constexpr int64_t kHalf = framework::kMaxNodeScore / 2;
    *score = kHalf + (kHalf + score_with - score_without) / 2;
    return Status();
  }

 private:
  const std::vector<Spec> specs_;
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(ctx.args, ctx.args_path));
  std::vector<Spec> specs;
  BERTH_RETURN_IF_ERROR(r.List("resources", &specs, [](const api::Reader& er, Spec* spec) -> Ok {
    spec->weight = 0;
    BERTH_RETURN_IF_ERROR(er.String("name", &spec->name));
    return er.Int64("weight", &spec->weight);
  }));
  BERTH_RETURN_IF_ERROR(r.Done());
  std::vector<std::string> errors;
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < specs.size(); ++i) {
    Spec& spec = specs[i];
    const std::string path = api::IndexPath(r.PathOf("resources"), i);
    if (spec.weight == 0) spec.weight = 1;  // upstream's v1 defaulting
    if (!seen.insert(spec.name).second) {
      errors.push_back(path + ".name: Duplicate value: \"" + spec.name + "\"");
    }
    if (spec.weight != 1) {
      errors.push_back(path + ".weight: Invalid value: " + std::to_string(spec.weight) +
                       ": must be 1");
    }
    spec.kind = KindOf(spec.name);
  }
  if (!errors.empty()) {
    if (errors.size() == 1) return Error{errors[0]};
    std::string msg = "[";
    for (size_t i = 0; i < errors.size(); ++i) msg += (i ? ", " : "") + errors[i];
    return Error{msg + "]"};
  }
  if (specs.empty()) {
    specs.push_back({api::kResourceCPU, 1, Kind::kCpu});
    specs.push_back({api::kResourceMemory, 1, Kind::kMemory});
  }
  return std::shared_ptr<framework::Plugin>(std::make_shared<BalancedAllocation>(std::move(specs)));
}

}  // namespace berth::plugins::node_resources_balanced_allocation
