#include "plugins/replicated_storage/replicated_storage.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/quantity.h"
#include "base/strings.h"
#include "plugins/replicated_storage/ledger.h"
#include "plugins/replicated_storage/pod_claims.h"
#include "scheduler/framework/args.h"

namespace berth::plugins::replicated_storage {
namespace {

using framework::Status;

const framework::StateKey& StateKey() {
  static const framework::StateKey key("PreFilterReplicatedStorage");
  return key;
}

constexpr const char kTaintUnreachable[] = "node.kubernetes.io/unreachable";
constexpr const char kTaintNotReady[] = "node.kubernetes.io/not-ready";
constexpr const char kExtraPvcsAnnotation[] = "scheduler.deckhouse.io/extra-pvcs";

// The pod's claims, shared by every clone of the cycle state (read-only after PreFilter).
struct CycleData final : framework::StateData {
  std::shared_ptr<const PodClaims> claims;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<CycleData>(*this);
  }
};

const PodClaims* Read(const framework::CycleState& state) {
  const auto* d = state.Read<CycleData>(StateKey());
  return d == nullptr ? nullptr : d->claims.get();
}

Status ClaimFails(const Claim& c, const std::string& what) {
  return Status::Unresolvable("PVC " + c.key + ": " + what);
}

std::string Bytes(int64_t b) { return api::Quantity::FromValue(b).ToString(); }

// The seed's node checks: a storage node that is not offline.
Status CheckNode(const api::Node& node) {
  if (!node.metadata.labels.count(api::kReplicatedStorageNodeLabel)) {
    return Status::Unresolvable(kReasonNotStorageNode);
  }
  bool ready = false;
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") ready = c.status == "True";
  }
  if (!ready) return Status::Unresolvable(kReasonNotReady);
  for (const auto& t : node.spec.taints) {
    if (t.key == kTaintUnreachable || t.key == kTaintNotReady) {
      return Status::Unresolvable("node(s) are offline: taint " + t.key);
    }
  }
  return {};
}

bool InZones(const api::Node& node, const std::vector<std::string>& zones) {
  if (zones.empty()) return true;
  auto it = node.metadata.labels.find(kZoneLabel);
  if (it == node.metadata.labels.end()) return false;
  for (const auto& z : zones) {
    if (z == it->second) return true;
  }
  return false;
}

class ReplicatedStorage final : public framework::PreFilterPlugin,
                                public framework::FilterPlugin,
                                public framework::PreScorePlugin,
                                public framework::ScorePlugin,
                                public framework::ReservePlugin,
                                public framework::EnqueueExtensions {
 public:
  ReplicatedStorage(framework::Handle* handle, double divisor, framework::Duration timeout)
      : handle_(handle), divisor_(divisor), ledger_(timeout) {}

  std::string_view Name() const override { return kName; }

  Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult*) const override {
    // Cheap exit before touching the ledger: no PVC at all.
    bool any = pod.Pod().metadata.annotations.count(kExtraPvcsAnnotation) > 0;
    for (const auto& v : pod.Pod().spec.volumes) {
      any = any || !v.pvc_claim_name.empty() || v.ephemeral;
    }
    if (!any) return Status::Skip();
    const api::ClusterObjects& objects = handle_->objects();
    // The ledger is pruned (and read) only for pods with replicated PVCs.
    auto held = [&] {
      std::optional<LogicalVolumeIndex> index;
      auto llvs = [&]() -> const LogicalVolumeIndex& {
        if (!index) index.emplace(objects);
        return *index;
      };
      ledger_.Prune(
          handle_->clock().Now(),
          [&objects, &llvs](const SpaceHold& h) { return HoldLanded(h, objects, llvs); },
          [&objects](const std::string& uid, const std::string& key, const std::string& node) {
            return PodBoundTo(uid, key, node, objects);
          });
      return ledger_.HeldBytes(pod.Uid());
    };
    auto claims = std::make_shared<PodClaims>();
    Status s = ResolvePodClaims(pod.Pod(), objects, held, claims.get());
    if (!s.IsSuccess()) return s;
    auto data = std::make_unique<CycleData>();
    data->claims = std::move(claims);
    state.Write(StateKey(), std::move(data));
    return {};
  }

  Status Filter(const framework::CycleState& state, const framework::PodInfo&,
                const framework::NodeInfo& node_info) const override {
    const PodClaims* pc = Read(state);
    if (pc == nullptr) {
      return Status::Error("reading \"PreFilterReplicatedStorage\" from cycleState: not found");
    }
    const api::Node& node = *node_info.node();
    if (Status s = CheckNode(node); !s.IsSuccess()) return s;
    const std::string& name = node.metadata.name;
    std::map<PoolKey, int64_t> used;  // by this pod's earlier PVCs
    for (const Claim& c : pc->claims) {
      if (!InZones(node, c.zones)) {
        return ClaimFails(c, "node is not in a zone of ReplicatedStorageClass " + c.rsc + " (" +
                                 Join(c.zones) + ")");
      }
      if (c.NeedsReplica() && !c.HasReplicaOn(name)) {
        return ClaimFails(c, "node has no diskful replica of volume " + c.pv + " (volumeAccess " +
                                 AccessName(c.access) + ")");
      }
      if (!c.NeedsRoom()) continue;
      const PoolKey* pool = pc->PoolOn(c, name);
      if (pool == nullptr) {
        return ClaimFails(c, "node has no Ready LVMVolumeGroup of ReplicatedStoragePool " + c.rsp);
      }
      auto sp = pc->space.find(*pool);
      const int64_t available = (sp == pc->space.end() ? 0 : sp->second.available) - used[*pool];
      if (available < c.request) {
        return ClaimFails(c, "not enough space in ReplicatedStoragePool " + c.rsp +
                                 " on the node (needs " + Bytes(c.request) + ")");
      }
      used[*pool] += c.request;
    }
    return {};
  }

  Status PreScore(framework::CycleState& state, const framework::PodInfo&,
                  const std::vector<const framework::NodeInfo*>&) const override {
    return Read(state) == nullptr ? Status::Skip() : Status();
  }

  Status Score(const framework::CycleState& state, const framework::PodInfo&,
               const framework::NodeInfo& node_info, int64_t* score) const override {
    const PodClaims* pc = Read(state);
    if (pc == nullptr) {
      return Status::Error("reading \"PreFilterReplicatedStorage\" from cycleState: not found");
    }
    const std::string& name = node_info.name();
    int64_t total = 0, count = 0, hits = 0, replica_pvcs = 0;
    std::map<PoolKey, int64_t> used;
    for (const Claim& c : pc->claims) {
      ++count;
      if (c.Bound() && c.access != Access::kAny) {
        ++replica_pvcs;
        if (c.HasReplicaOn(name)) {
          ++hits;
          continue;
        }
        if (c.access == Access::kLocal) continue;  // never space-scored, as production
      }
      const PoolKey* pool = pc->PoolOn(c, name);
      if (pool == nullptr) continue;  // contributes 0
      auto sp = pc->space.find(*pool);
      if (sp == pc->space.end()) continue;
      total += PercentLeft(sp->second.available - used[*pool], c.request, sp->second.total);
      used[*pool] += c.request;
    }
    int64_t s = LogScore(static_cast<double>(total / count), divisor_);
    if (replica_pvcs > 0 && hits > 0) s = std::max(s, 10 * hits / replica_pvcs);
    *score = s * (framework::kMaxNodeScore / 10);
    return {};
  }

  Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                 const std::string& node) const override {
    const PodClaims* pc = Read(state);
    if (pc == nullptr) return {};
    std::vector<SpaceHold> holds;
    for (const Claim& c : pc->claims) {
      if (c.Bound() || !c.NeedsRoom() || c.request <= 0) continue;
      if (const PoolKey* pool = pc->PoolOn(c, node)) {
        holds.push_back({c.key, node, *pool, c.request});
      }
    }
    if (!holds.empty()) {
      ledger_.Hold(pod.Uid(), pod.pod->Key(), std::move(holds), handle_->clock().Now());
    }
    return {};
  }

  void Unreserve(framework::CycleState&, const framework::PodInfo& pod,
                 const std::string&) const override {
    ledger_.Release(pod.Uid());
  }

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    using framework::ClusterEvent;
    using framework::EventResource;
    namespace action = framework::action;
    return {
        {ClusterEvent{EventResource::kNode,
                      action::kAdd | action::kUpdateNodeLabel | action::kUpdateNodeTaint |
                          action::kUpdateNodeCondition,
                      "Node"},
         nullptr},
        {ClusterEvent{EventResource::kPersistentVolumeClaim, action::kAdd | action::kUpdate,
                      "PersistentVolumeClaim"},
         nullptr},
        {ClusterEvent{EventResource::kPersistentVolume, action::kAdd | action::kUpdate,
                      "PersistentVolume"},
         nullptr},
        {ClusterEvent{EventResource::kStorageClass, action::kAdd, "StorageClassAdd"}, nullptr},
        {ClusterEvent{EventResource::kReplicatedStorage, action::kAll, "ReplicatedStorage"},
         nullptr},
    };
  }

 private:
  framework::Handle* handle_;
  const double divisor_;
  // Space held for pods being bound; shared across cycles (see ledger.h for why).
  mutable ReservationLedger ledger_;
};

}  // namespace

Result<std::shared_ptr<framework::Plugin>> New(const framework::PluginContext& ctx) {
  BERTH_ASSIGN_OR_RETURN(api::Reader reader, framework::ReadArgs(ctx.args, ctx.args_path));
  double divisor = 1;
  BERTH_RETURN_IF_ERROR(reader.Double("defaultDivisor", &divisor));
  if (!(divisor > 0)) {
    return api::PathError(reader.PathOf("defaultDivisor"), "must be greater than 0");
  }
  int64_t timeout_seconds = 60;
  BERTH_RETURN_IF_ERROR(reader.Int64("reservationTimeoutSeconds", &timeout_seconds));
  if (timeout_seconds <= 0) {
    return api::PathError(reader.PathOf("reservationTimeoutSeconds"), "must be greater than 0");
  }
  BERTH_RETURN_IF_ERROR(reader.Done());
  if (ctx.handle == nullptr) return Error{"ReplicatedStorage: the plugin needs a framework handle"};
  return std::shared_ptr<framework::Plugin>(std::make_shared<ReplicatedStorage>(
      ctx.handle, divisor,
      std::chrono::duration_cast<framework::Duration>(std::chrono::seconds(timeout_seconds))));
}

}  // namespace berth::plugins::replicated_storage
