#include "cmd/berth/app/explain/offline.h"

#include "base/strings.h"
#include "cmd/berth/app/simulate/simulator.h"
#include "scheduler/diagnosis/store.h"

namespace berth::explain {
namespace {

OfflineResult NotApplicable(std::string message) {
  OfflineResult r;
  r.kind = OfflineResult::Kind::kNotApplicable;
  r.message = std::move(message);
  return r;
}

std::string ProfileNames(const config::SchedulerConfiguration& cfg) {
  std::vector<std::string> names;
  for (const auto& p : cfg.profiles) names.push_back(p.scheduler_name);
  return Join(names, ", ");
}

}  // namespace

OfflineResult ExplainOffline(const simulate::ClusterFile& cluster,
                             const config::SchedulerConfiguration& cfg,
                             const framework::Registry& registry,
                             const std::vector<framework::Extender*>& extenders,
                             const std::string& ns, const std::string& name) {
  const std::string key = ns + "/" + name;
  std::shared_ptr<const api::Pod> target;
  for (const auto& p : cluster.pods) {
    if (p->metadata.namespace_ == ns && p->metadata.name == name) target = p;
  }
  if (target == nullptr) return NotApplicable("pod " + key + " not found");
  if (!target->spec.node_name.empty()) {
    return NotApplicable("pod " + key + " is not pending: it is bound to node " +
                         target->spec.node_name);
  }
  const std::string& phase = target->status.phase;
  if (phase == "Succeeded" || phase == "Failed") {
    return NotApplicable("pod " + key + " is not pending: it has finished (phase " + phase + ")");
  }
  bool ours = false;
  for (const auto& p : cfg.profiles) ours = ours || p.scheduler_name == target->spec.scheduler_name;
  if (!ours) {
    return NotApplicable("pod " + key + " is not berth's: its schedulerName " +
                         Quote(target->spec.scheduler_name) +
                         " is no profile of berth's configuration (" + ProfileNames(cfg) + ")");
  }
  if (!target->spec.scheduling_gates.empty()) {
    return NotApplicable("pod " + key + " is held by its scheduling gates (" +
                         Join(target->spec.scheduling_gates, ", ") +
                         "); no scheduler tries it until they are removed");
  }

  // Placements are kept too: a pod that would fit now is reported Scheduled on its node.
  diagnosis::Store store(diagnosis::StoreOptions{cluster.pods.size() + 1});
  simulate::Options options;
  options.explain = true;
  options.diagnoses = &store;
  options.extenders = extenders;
  auto out = simulate::Run(cluster, cfg, registry, options);
  if (!out.ok()) {
    OfflineResult r;
    r.message = out.error();
    return r;
  }
  OfflineResult r;
  r.kind = OfflineResult::Kind::kExplained;
  if (auto d = store.Get(key); d && d->uid == target->metadata.uid) {
    r.record = std::move(*d);
  } else {
    // Never attempted (held back by a PreEnqueue plugin): the simulation's own line for it.
    r.record.pod = key;
    r.record.uid = target->metadata.uid;
    r.record.profile = target->spec.scheduler_name;
    if (const api::Value* pods = out->Find("pods"); pods != nullptr && pods->IsArray()) {
      for (const auto& p : pods->AsArray()) {
        const api::Value* k = p.Find("pod");
        if (k == nullptr || !k->IsString() || k->AsString() != key) continue;
        if (const api::Value* s = p.Find("status"); s != nullptr && s->IsString()) {
          r.record.status = s->AsString();
        }
        if (const api::Value* m = p.Find("message"); m != nullptr && m->IsString()) {
          r.record.message = m->AsString();
        }
      }
    }
  }
  // The attempt happened on the simulation's virtual clock, not at a time worth printing.
  r.record.attempted_unix_micros = 0;
  return r;
}

}  // namespace berth::explain
