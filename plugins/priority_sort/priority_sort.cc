#include "plugins/priority_sort/priority_sort.h"

#include "scheduler/framework/args.h"

namespace berth::plugins::priority_sort {
namespace {

class PrioritySort final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return kName; }

  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    const int32_t pa = a.Pod().Priority();
    const int32_t pb = b.Pod().Priority();
    if (pa != pb) return pa > pb;
    if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
    return a.seq < b.seq;
  }
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<PrioritySort>());
}

}  // namespace berth::plugins::priority_sort
