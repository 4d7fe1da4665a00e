#include "config/configz.h"

#include "api/json/parse.h"
#include "api/value.h"

namespace berth::config {

using api::Value;

namespace {

Value RenderProfile(const EffectiveProfile& profile) {
  Value prof = Value::MakeObject();
  prof.Set("schedulerName", Value::String(profile.scheduler_name));
  Value plugins = Value::MakeObject();
  for (const auto& [point, list] : profile.plugins) {
    Value entries = Value::MakeArray();
    for (const auto& p : list) {
      Value e = Value::MakeObject();
      e.Set("name", Value::String(p.name));
      if (point == "score") e.Set("weight", Value::Int(p.weight));
      entries.Push(std::move(e));
    }
    plugins.Set(point, std::move(entries));
  }
  prof.Set("plugins", std::move(plugins));
  return prof;
}

}  // namespace

std::string RenderConfigz(const SchedulerConfiguration& cfg,
                          const std::vector<EffectiveProfile>& profiles) {
  Value doc = Value::MakeObject();
  doc.Set("apiVersion", Value::String("kubescheduler.config.k8s.io/v1"));
  doc.Set("kind", Value::String("KubeSchedulerConfiguration"));
  doc.Set("parallelism", Value::Int(cfg.parallelism));
  doc.Set("percentageOfNodesToScore", Value::Int(cfg.percentage_of_nodes_to_score));
  doc.Set("podInitialBackoffSeconds", Value::Int(cfg.pod_initial_backoff_seconds));
  doc.Set("podMaxBackoffSeconds", Value::Int(cfg.pod_max_backoff_seconds));
  Value le = Value::MakeObject();
  le.Set("leaderElect", Value::Bool(cfg.leader_election.leader_elect));
  le.Set("resourceName", Value::String(cfg.leader_election.resource_name));
  doc.Set("leaderElection", std::move(le));
  Value cc = Value::MakeObject();
  cc.Set("qps", Value::Double(cfg.client_connection.qps));
  cc.Set("burst", Value::Int(cfg.client_connection.burst));
  doc.Set("clientConnection", std::move(cc));
  Value list = Value::MakeArray();
  for (const auto& p : profiles) list.Push(RenderProfile(p));
  doc.Set("profiles", std::move(list));
  return api::json::ToJson(doc);
}

}  // namespace berth::config
