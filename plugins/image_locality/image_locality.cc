#include "plugins/image_locality/image_locality.h"

#include <string>
#include <vector>

#include "scheduler/framework/args.h"
#include "scheduler/framework/plugin.h"

namespace berth::plugins::image_locality {
namespace {

using framework::Status;

const framework::StateKey& PreScoreKey() {
  static const framework::StateKey key("PreScoreImageLocality");
  return key;
}

struct PreScoreState final : framework::StateData {
  std::vector<std::string> images;  // normalised, one per (init) container and image volume
  int total_nodes = 0;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// Upstream v1.37's sumImageScores: init containers, containers, then image volumes, each counted
// once towards the threshold whether or not the node holds it.
void CollectImages(const api::Pod& pod, std::vector<std::string>& out) {
  out.reserve(pod.spec.init_containers.size() + pod.spec.containers.size());
  for (const auto& c : pod.spec.init_containers)
    out.push_back(framework::NormalizedImageName(c.image));
  for (const auto& c : pod.spec.containers) out.push_back(framework::NormalizedImageName(c.image));
  for (const auto& v : pod.spec.volumes) {
    if (v.image_reference) out.push_back(framework::NormalizedImageName(*v.image_reference));
  }
}

// Upstream's scaledImageScore: the size weighted by how widely the image has spread, which damps
// the "node heating" of always picking the few nodes that already pulled it.
int64_t ScaledImageScore(const framework::ImageStateSummary& s, int total_nodes) {
  if (total_nodes <= 0) return 0;
  double spread = static_cast<double>(s.num_nodes) / static_cast<double>(total_nodes);
  return static_cast<int64_t>(static_cast<double>(s.size) * spread);
}

int64_t SumImageScores(const framework::NodeInfo& node, const std::vector<std::string>& images,
                       int total_nodes) {
  int64_t sum = 0;
  const auto& states = node.image_states();
  for (const auto& name : images) {
    auto it = states.find(name);
    if (it != states.end()) sum += ScaledImageScore(it->second, total_nodes);
  }
  return sum;
}

class ImageLocality final : public framework::PreScorePlugin, public framework::ScorePlugin {
 public:
  explicit ImageLocality(framework::Handle* handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                  const std::vector<const framework::NodeInfo*>&) const override {
    auto s = std::make_unique<PreScoreState>();
    CollectImages(pod.Pod(), s->images);
    s->total_nodes = TotalNodes();
    state.Write(PreScoreKey(), std::move(s));
    return Status();
  }

  Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
               const framework::NodeInfo& node, int64_t* score) const override {
    if (const auto* s = state.Read<PreScoreState>(PreScoreKey())) {
      *score = CalculatePriority(SumImageScores(node, s->images, s->total_nodes),
                                 static_cast<int>(s->images.size()));
      return Status();
    }
    std::vector<std::string> images;
    CollectImages(pod.Pod(), images);
    *score = CalculatePriority(SumImageScores(node, images, TotalNodes()),
                               static_cast<int>(images.size()));
    return Status();
  }

 private:
  int TotalNodes() const {
    return handle_ == nullptr ? 0 : static_cast<int>(handle_->snapshot().NumNodes());
  }

  framework::Handle* handle_;
};

}  // namespace

int64_t CalculatePriority(int64_t sum_scores, int num_containers) {
  const int64_t max_threshold = kMaxContainerThreshold * num_containers;
  if (max_threshold <= kMinThreshold) return 0;  // a pod without containers
  if (sum_scores < kMinThreshold) {
    sum_scores = kMinThreshold;
  } else if (sum_scores > max_threshold) {
    sum_scores = max_threshold;
  }
  return framework::kMaxNodeScore * (sum_scores - kMinThreshold) / (max_threshold - kMinThreshold);
}

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<ImageLocality>(ctx.handle));
}

}  // namespace berth::plugins::image_locality
