#include "plugins/node_ports/node_ports.h"

#include <string>
#include <vector>

#include "base/strings.h"
#include "scheduler/framework/args.h"
#include "scheduler/framework/explain.h"

namespace berth::plugins::node_ports {
namespace {

const framework::StateKey& PreFilterKey() {
  static const framework::StateKey key("PreFilterNodePorts");
  return key;
}

// The pod's wanted host ports (copied once per cycle; Filter reads them per node).
struct PreFilterState final : framework::StateData {
  std::vector<framework::HostPort> ports;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

bool Conflicts(const std::vector<framework::HostPort>& used, const framework::HostPort& want) {
  for (const auto& u : used) {
    if (u.port != want.port || u.protocol != want.protocol) continue;
    if (u.ip == want.ip || u.ip == "0.0.0.0" || want.ip == "0.0.0.0") return true;
  }
  return false;
}

// "8080/TCP", or "127.0.0.1:8080/TCP" for a port bound to one address.
std::string PortText(const framework::HostPort& p) {
  std::string out = p.ip == "0.0.0.0" ? std::string() : p.ip + ":";
  return out + std::to_string(p.port) + "/" + p.protocol;
}

// "host port 8080/TCP is taken by pod ns/name" for each wanted port in use on the node.
std::string PortsTaken(const std::vector<framework::HostPort>& wanted,
                       const framework::NodeInfo& node) {
  std::vector<std::string> parts;
  for (const auto& want : wanted) {
    if (!node.PortConflicts(want)) continue;
    const framework::PodInfo* holder = nullptr;
    for (const auto& p : node.pods()) {
      if (Conflicts(p->host_ports, want)) {
        holder = p.get();
        break;
      }
    }
    parts.push_back("host port " + PortText(want) +
                    (holder != nullptr ? " is taken by pod " + holder->key : " is in use"));
  }
  return Join(parts, "; ");
}

class NodePorts final : public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions,
                        public framework::FilterExplainer {
 public:
  std::string_view Name() const override { return kName; }

  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              const std::vector<const framework::NodeInfo*>&,
                              framework::PreFilterResult*) const override {
    if (pod.host_ports.empty()) return framework::Status::Skip();
    auto s = std::make_unique<PreFilterState>();
    s->ports = pod.host_ports;
    for (auto& p : s->ports) {
      if (p.ip.empty()) p.ip = "0.0.0.0";
      if (p.protocol.empty()) p.protocol = "TCP";
    }
    state.Write(PreFilterKey(), std::move(s));
    return {};
  }

  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo&,
                           const framework::NodeInfo& node) const override {
    const auto* s = state.Read<PreFilterState>(PreFilterKey());
    if (s == nullptr) {
      return framework::Status::Error("reading \"PreFilterNodePorts\" from cycleState: not found");
    }
    for (const auto& want : s->ports) {
      if (node.PortConflicts(want)) {
        static const framework::Status kConflict =
            framework::Status::Unschedulable(kErrReason).WithPlugin(kName);
        return kConflict;
      }
    }
    return {};
  }

  void ExplainFilter(const framework::CycleState& state, const framework::PodInfo& pod,
                     const framework::NodeInfo& node, const framework::Status& rejection,
                     framework::ExplainDetail detail,
                     std::vector<framework::FilterNeed>* out) const override {
    for (const std::string& reason : rejection.reasons()) {
      if (reason != kErrReason) continue;
      // kGapOnly (every rejected node) copies no string: explain.h allows an empty reason.
      framework::FilterNeed n{detail == framework::ExplainDetail::kFull ? reason : std::string(),
                              std::string(), kExplainGap};
      if (detail == framework::ExplainDetail::kFull) {
        const auto* s = state.Read<PreFilterState>(PreFilterKey());
        n.need = PortsTaken(s != nullptr ? s->ports : WantedHostPorts(pod.Pod()), node);
      }
      out->push_back(std::move(n));
    }
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    using framework::QueueingHint;
    framework::QueueingHintFn pod_deleted = [](const api::Pod& pod,
                                               const framework::EventObject& old_obj,
                                               const framework::EventObject&) {
      const auto* o = std::get_if<const api::Pod*>(&old_obj);
      if (o == nullptr || *o == nullptr) return QueueingHint::kQueue;
      const api::Pod& deleted = **o;
      // An unscheduled pod held no ports anywhere.
      if (deleted.spec.node_name.empty() && deleted.status.nominated_node_name.empty()) {
        return QueueingHint::kQueueSkip;
      }
      const auto released = WantedHostPorts(deleted);
      if (released.empty()) return QueueingHint::kQueueSkip;
      for (const auto& want : WantedHostPorts(pod)) {
        if (Conflicts(released, want)) return QueueingHint::kQueue;
      }
      return QueueingHint::kQueueSkip;
    };
    return {
        {framework::ClusterEvent{framework::EventResource::kPod, framework::action::kDelete,
                                 "PodDelete"},
         std::move(pod_deleted)},
        {framework::ClusterEvent{framework::EventResource::kNode, framework::action::kAdd,
                                 "NodeAdd"},
         nullptr},
    };
  }
};

}  // namespace

std::vector<framework::HostPort> WantedHostPorts(const api::Pod& pod) {
  std::vector<framework::HostPort> out;
  for (const auto& c : pod.spec.containers) {
    for (const auto& p : c.ports) {
      if (p.host_port <= 0) continue;
      out.push_back(framework::HostPort{p.host_ip.empty() ? "0.0.0.0" : p.host_ip,
                                        p.protocol.empty() ? "TCP" : p.protocol, p.host_port});
    }
  }
  return out;
}

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_RETURN_IF_ERROR(framework::NoArgs(ctx.args, ctx.args_path));
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodePorts>());
}

}  // namespace berth::plugins::node_ports
