#pragma once
// Shared fixtures for the PodTopologySpread tests: pod/node helpers in the shape of upstream's
// st.MakePod().SpreadConstraint(...) and a plugin wired to a FakeHandle snapshot.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/value.h"
#include "plugins/pod_topology_spread/pod_topology_spread.h"
#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::pod_topology_spread::spread_testing {

using testing::MakeNode;
using testing::MakePod;

inline api::LabelSelector Exists(const std::string& key) {
  api::LabelSelector s;
  s.match_expressions.push_back({key, api::SelectorOperator::kExists, {}});
  return s;
}
inline api::LabelSelector LabelsSel(api::Labels l) {
  api::LabelSelector s;
  s.match_labels = std::move(l);
  return s;
}

struct Spread {
  int32_t max_skew = 1;
  std::string key;
  std::string when = "DoNotSchedule";
  std::optional<api::LabelSelector> selector;
  std::optional<int32_t> min_domains;
  std::string affinity_policy;
  std::string taints_policy;
  std::vector<std::string> match_label_keys;
};

// Upstream's st.MakePod().SpreadConstraint(maxSkew, key, when, selector, minDomains,
// nodeAffinityPolicy, nodeTaintsPolicy, matchLabelKeys).
inline MakePod& AddSpread(MakePod& p, const Spread& s) {
  api::TopologySpreadConstraint c;
  c.max_skew = s.max_skew;
  c.topology_key = s.key;
  c.when_unsatisfiable = s.when;
  c.label_selector = s.selector;
  c.min_domains = s.min_domains;
  c.node_affinity_policy = s.affinity_policy;
  c.node_taints_policy = s.taints_policy;
  c.match_label_keys = s.match_label_keys;
  p.Mutable().spec.topology_spread_constraints.push_back(std::move(c));
  return p;
}

inline MakePod& NodeAffinityIn(MakePod& p, const std::string& key, std::vector<std::string> values,
                               api::SelectorOperator op = api::SelectorOperator::kIn) {
  api::NodeSelectorTerm term;
  term.match_expressions.push_back({key, op, std::move(values)});
  api::NodeAffinity na;
  na.required = api::NodeSelector{{term}};
  p.Mutable().spec.affinity = api::Affinity{na, std::nullopt, std::nullopt};
  return p;
}

inline MakePod& Terminating(MakePod& p) {
  p.Mutable().metadata.deletion_timestamp = api::Time{1};
  return p;
}

inline MakePod& Controller(MakePod& p, const std::string& kind, const std::string& name,
                           const std::string& uid) {
  p.Mutable().metadata.owner_references.push_back({"apps/v1", kind, name, uid, true});
  return p;
}

// An apps/v1 ReplicaSet `name` in `ns` selecting `match_labels`, in the handle's object store.
inline void AddReplicaSet(testing::FakeHandle& handle, const std::string& name,
                          api::Labels match_labels, const std::string& ns = "default") {
  api::ReplicaSet rs;
  rs.metadata.name = name;
  rs.metadata.namespace_ = ns;
  rs.selector = LabelsSel(std::move(match_labels));
  handle.mutable_objects().replica_sets.Upsert(std::make_shared<api::ReplicaSet>(std::move(rs)));
}

// A node labelled zone=<zone> (when non-empty) and node=<name>, as upstream's tests.
inline api::Node ZoneNode(const std::string& name, const std::string& zone) {
  auto n = MakeNode(name);
  if (!zone.empty()) n.Label("zone", zone);
  n.Label("node", name);
  return n.Obj();
}

inline api::Pod PodOn(const std::string& name, const std::string& node, api::Labels labels,
                      const std::string& ns = "default") {
  auto p = MakePod(name).Namespace(ns).Node(node);
  for (const auto& [k, v] : labels) p.Label(k, v);
  return p.Obj();
}

inline api::Value ListArgs() {
  api::Value v = api::Value::MakeObject();
  v.Set("defaultingType", api::Value::String("List"));
  return v;
}

// The plugin over a snapshot of `nodes` with `pods` placed by spec.nodeName.
class Env {
 public:
  Env(const std::vector<api::Node>& nodes, const std::vector<api::Pod>& pods,
      const api::Value* args = nullptr) {
    std::vector<framework::NodeInfo> infos;
    for (const auto& n : nodes) {
      framework::NodeInfo ni(std::make_shared<api::Node>(n));
      for (const auto& p : pods) {
        if (p.spec.node_name == n.metadata.name) {
          ni.AddPod(framework::MakePodInfo(std::make_shared<api::Pod>(p)));
        }
      }
      infos.push_back(std::move(ni));
    }
    handle_ = std::make_unique<testing::FakeHandle>(std::move(infos));
    framework::PluginContext ctx;
    ctx.args = args;
    ctx.args_path = "args";
    ctx.handle = handle_.get();
    auto p = New(ctx);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error());
    if (p.ok()) plugin_ = *p;
  }

  testing::FakeHandle& handle() { return *handle_; }
  const framework::NodeInfo& Node(const std::string& name) const {
    return *handle_->snapshot().Get(name);
  }
  const framework::PreFilterPlugin& pre_filter() const {
    return *dynamic_cast<const framework::PreFilterPlugin*>(plugin_.get());
  }
  const framework::FilterPlugin& filter() const {
    return *dynamic_cast<const framework::FilterPlugin*>(plugin_.get());
  }
  const framework::PreScorePlugin& pre_score() const {
    return *dynamic_cast<const framework::PreScorePlugin*>(plugin_.get());
  }
  const framework::ScorePlugin& score() const {
    return *dynamic_cast<const framework::ScorePlugin*>(plugin_.get());
  }
  const framework::EnqueueExtensions& events() const {
    return *dynamic_cast<const framework::EnqueueExtensions*>(plugin_.get());
  }

  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod) const {
    framework::PreFilterResult r;
    return pre_filter().PreFilter(state, pod, handle_->snapshot().List(), &r);
  }

  // Codes of Filter for every node, keyed by node name.
  std::map<std::string, framework::Code> FilterCodes(const api::Pod& pod) const {
    auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
    framework::CycleState state;
    framework::Status s = PreFilter(state, *info);
    EXPECT_TRUE(s.IsSuccess()) << s.Message();
    std::map<std::string, framework::Code> out;
    for (const auto* ni : handle_->snapshot().List()) {
      out[ni->name()] = filter().Filter(state, *info, *ni).code();
    }
    return out;
  }

  // PreScore over `candidates`, Score on each, NormalizeScore; name -> score.
  std::map<std::string, int64_t> Scores(const api::Pod& pod,
                                        const std::vector<std::string>& candidates) const {
    auto info = framework::MakePodInfo(std::make_shared<api::Pod>(pod));
    std::vector<const framework::NodeInfo*> nodes;
    for (const auto& n : candidates) nodes.push_back(&Node(n));
    framework::CycleState state;
    framework::Status s = pre_score().PreScore(state, *info, nodes);
    EXPECT_TRUE(s.IsSuccess()) << s.Message();
    framework::NodeScoreList list;
    for (const auto* ni : nodes) {
      int64_t value = 0;
      framework::Status ss = score().Score(state, *info, *ni, &value);
      EXPECT_TRUE(ss.IsSuccess()) << ss.Message();
      list.push_back({&ni->name(), value});
    }
    EXPECT_TRUE(score().NormalizeScore(state, *info, list).IsSuccess());
    std::map<std::string, int64_t> out;
    for (const auto& ns : list) out[*ns.name] = ns.score;
    return out;
  }

 private:
  std::unique_ptr<testing::FakeHandle> handle_;
  std::shared_ptr<framework::Plugin> plugin_;
};

}  // namespace berth::plugins::pod_topology_spread::spread_testing
