#include "plugins/node_label/node_label.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/args.h"
#include "scheduler/framework/plugin.h"

namespace berth::plugins::node_label {
namespace {

using framework::Code;
using framework::Status;

struct Args {
  std::vector<std::string> present;
  std::vector<std::string> absent;
  std::vector<std::string> present_preference;
  std::vector<std::string> absent_preference;
};

// Same check and wording as upstream's validateNoConflict: the conflicting entry of the present
// list is reported, naming the absent entry it clashes with.
void CheckNoConflict(const std::vector<std::string>& present,
                     const std::vector<std::string>& absent, const std::string& present_path,
                     const std::string& absent_path, std::vector<std::string>& errors) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < present.size(); ++i) index[present[i]] = i;
  for (size_t i = 0; i < absent.size(); ++i) {
    auto it = index.find(absent[i]);
    if (it == index.end()) continue;
    errors.push_back(present_path + "[" + std::to_string(it->second) + "]: Invalid value: \"" +
                     absent[i] + "\": conflict with " + absent_path + "[" + std::to_string(i) +
                     "]");
  }
}

bool HasKey(const api::Labels& labels, const std::string& key) { return labels.count(key) > 0; }

class NodeLabel final : public framework::FilterPlugin,
                        public framework::ScorePlugin,
                        public framework::EnqueueExtensions {
 public:
  explicit NodeLabel(Args args) : args_(std::move(args)) {}

  std::string_view Name() const override { return kName; }

  Status Filter(const framework::CycleState&, const framework::PodInfo&,
                const framework::NodeInfo& node) const override {
    if (node.node() == nullptr) return Status::Error("node not found");
    const api::Labels& labels = node.node()->metadata.labels;
    for (const auto& key : args_.present) {
      if (!HasKey(labels, key)) return Status::Unresolvable(kErrReasonPresenceViolated);
    }
    for (const auto& key : args_.absent) {
      if (HasKey(labels, key)) return Status::Unresolvable(kErrReasonPresenceViolated);
    }
    return Status();
  }

  Status Score(const framework::CycleState&, const framework::PodInfo&,
               const framework::NodeInfo& node, int64_t* score) const override {
    *score = 0;
    if (node.node() == nullptr) return Status::Error("node not found");
    const auto size =
        static_cast<int64_t>(args_.present_preference.size() + args_.absent_preference.size());
    if (size == 0) return Status();
    const api::Labels& labels = node.node()->metadata.labels;
    int64_t sum = 0;
    for (const auto& key : args_.present_preference) {
      if (HasKey(labels, key)) sum += framework::kMaxNodeScore;
    }
    for (const auto& key : args_.absent_preference) {
      if (!HasKey(labels, key)) sum += framework::kMaxNodeScore;
    }
    // Averaged per preference so the result stays within [0, MaxNodeScore].
    *score = sum / size;
    return Status();
  }

  // Only a new node or a change of a node's labels can change this plugin's verdict.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    framework::ClusterEvent ev;
    ev.resource = framework::EventResource::kNode;
    ev.action_type = framework::action::kAdd | framework::action::kUpdateNodeLabel;
    ev.label = "NodeAdd|UpdateNodeLabel";
    return {framework::ClusterEventWithHint{ev, nullptr}};
  }

 private:
  const Args args_;
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader r, framework::ReadArgs(ctx.args, ctx.args_path));
  Args args;
  BERTH_RETURN_IF_ERROR(r.Strings("presentLabels", &args.present));
  BERTH_RETURN_IF_ERROR(r.Strings("absentLabels", &args.absent));
  BERTH_RETURN_IF_ERROR(r.Strings("presentLabelsPreference", &args.present_preference));
  BERTH_RETURN_IF_ERROR(r.Strings("absentLabelsPreference", &args.absent_preference));
  BERTH_RETURN_IF_ERROR(r.Done());

  std::vector<std::string> errors;
  CheckNoConflict(args.present, args.absent, r.PathOf("presentLabels"), r.PathOf("absentLabels"),
                  errors);
  CheckNoConflict(args.present_preference, args.absent_preference,
                  r.PathOf("presentLabelsPreference"), r.PathOf("absentLabelsPreference"), errors);
  if (!errors.empty()) {
    // Upstream's field.ErrorList aggregate: one error alone, several as "[e1, e2]".
    if (errors.size() == 1) return Error{errors[0]};
    std::string msg = "[";
    for (size_t i = 0; i < errors.size(); ++i) msg += (i ? ", " : "") + errors[i];
    return Error{msg + "]"};
  }
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodeLabel>(std::move(args)));
}

}  // namespace berth::plugins::node_label
