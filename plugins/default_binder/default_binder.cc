#include "plugins/default_binder/default_binder.h"

#include "scheduler/framework/args.h"
#include "scheduler/framework/handle.h"

namespace berth::plugins::default_binder {
namespace {

class DefaultBinder final : public framework::BindPlugin {
 public:
  explicit DefaultBinder(framework::Handle* handle) : handle_(handle) {}
  std::string_view Name() const override { return kName; }

  framework::Status Bind(framework::CycleState&, const framework::PodInfo& pod,
                         const std::string& node) const override {
    return handle_->api_writer().Bind(pod.Pod(), node);
  }

 private:
  framework::Handle* handle_;
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  if (ctx.handle == nullptr) return Error{std::string(kName) + ": needs a framework handle"};
  return std::shared_ptr<framework::Plugin>(std::make_shared<DefaultBinder>(ctx.handle));
}

}  // namespace berth::plugins::default_binder
