#include "scheduler/runtime/framework.h"

#include <algorithm>
#include <bit>
#include <set>

#include "base/strings.h"

namespace berth::runtime {

using framework::Code;
using framework::Status;

// One row per extension point, in upstream's order: the single table of extension points.
// The config name and the config field are config::kExtensionPoints' (the config types cannot
// see the plugin interfaces); the rest is the runtime's: the interface a plugin must implement
// and the list the runtime keeps its plugins in.
struct Framework::Point {
  const config::ExtensionPoint* config;  // name ("filter") and PluginSet field
  std::string_view interface_name;       // "FilterPlugin", for errors
  bool (*implements)(const framework::Plugin* p);
  void (*add)(Framework& f, const framework::Plugin* p);  // appends p to the runtime's list
  void (*names)(const Framework& f, std::vector<std::string>* out);
};

template <typename T, std::vector<const T*> Framework::*kList>
constexpr Framework::Point Framework::MakePoint(size_t config_index,
                                                std::string_view interface_name) {
  return Point{
      &config::kExtensionPoints[config_index],
      interface_name,
      [](const framework::Plugin* p) { return dynamic_cast<const T*>(p) != nullptr; },
      [](Framework& f, const framework::Plugin* p) {
        (f.*kList).push_back(dynamic_cast<const T*>(p));
      },
      [](const Framework& f, std::vector<std::string>* out) {
        for (const T* p : f.*kList) out->emplace_back(p->Name());
      },
  };
}

const std::array<Framework::Point, 12>& Framework::Points() {
  using framework::BindPlugin;
  using framework::FilterPlugin;
  using framework::PermitPlugin;
  using framework::PostBindPlugin;
  using framework::PostFilterPlugin;
  using framework::PreBindPlugin;
  using framework::PreEnqueuePlugin;
  using framework::PreFilterPlugin;
  using framework::PreScorePlugin;
  using framework::QueueSortPlugin;
  using framework::ReservePlugin;
  using framework::ScorePlugin;
  static constexpr std::array<Point, 12> kPoints = {{
      MakePoint<PreEnqueuePlugin, &Framework::pre_enqueue_>(0, "PreEnqueuePlugin"),
      MakePoint<QueueSortPlugin, &Framework::queue_sorts_>(1, "QueueSortPlugin"),
      MakePoint<PreFilterPlugin, &Framework::pre_filter_>(2, "PreFilterPlugin"),
      MakePoint<FilterPlugin, &Framework::filter_>(3, "FilterPlugin"),
      MakePoint<PostFilterPlugin, &Framework::post_filter_>(4, "PostFilterPlugin"),
      MakePoint<PreScorePlugin, &Framework::pre_score_>(5, "PreScorePlugin"),
      MakePoint<ScorePlugin, &Framework::score_>(6, "ScorePlugin"),
      MakePoint<ReservePlugin, &Framework::reserve_>(7, "ReservePlugin"),
      MakePoint<PermitPlugin, &Framework::permit_>(8, "PermitPlugin"),
      MakePoint<PreBindPlugin, &Framework::pre_bind_>(9, "PreBindPlugin"),
      MakePoint<BindPlugin, &Framework::bind_>(10, "BindPlugin"),
      MakePoint<PostBindPlugin, &Framework::post_bind_>(11, "PostBindPlugin"),
  }};
  static_assert(kPoints.size() == config::kExtensionPoints.size());
  // The interface is the config name capitalised + "Plugin": a row pointing at the wrong config
  // entry does not compile.
  static_assert([] {
    for (const Point& p : kPoints) {
      const std::string_view n = p.config->name;
      const std::string_view i = p.interface_name;
      if (i.size() != n.size() + 6 || i.substr(n.size()) != "Plugin") return false;
      if (i[0] != n[0] - 'a' + 'A' || i.substr(1, n.size() - 1) != n.substr(1)) return false;
    }
    return true;
  }());
  return kPoints;
}

Ok Framework::InstantiatePlugins(const config::Profile& profile, const std::string& prefix,
                                 const framework::Registry& registry) {
  auto instantiate = [&](const std::string& name, const std::string& where) -> Ok {
    if (plugins_.count(name)) return {};
    const framework::PluginFactory* factory = registry.Find(name);
    if (factory == nullptr) {
      return Error{where + ": unknown plugin \"" + name +
                   "\"; known plugins: " + Join(registry.Names())};
    }
    framework::PluginContext ctx;
    ctx.handle = this;
    ctx.scheduler_name = profile.scheduler_name;
    const config::PluginConfig* pc = profile.FindPluginConfig(name);
    if (pc != nullptr) {
      ctx.args = pc->args.IsNull() ? nullptr : &pc->args;
      ctx.args_path = pc->path;
    } else {
      ctx.args_path = prefix + ".pluginConfig[" + name + "].args";
    }
    BERTH_ASSIGN_OR_RETURN(plugins_[name], (*factory)(ctx));
    return {};
  };
  const auto& plugins = profile.plugins;
  const std::string mp_path = prefix + ".plugins.multiPoint.enabled";
  for (size_t i = 0; i < plugins.multi_point.enabled.size(); ++i) {
    BERTH_RETURN_IF_ERROR(
        instantiate(plugins.multi_point.enabled[i].name, mp_path + "[" + std::to_string(i) + "]"));
  }
  for (const Point& point : Points()) {
    const auto& set = plugins.*point.config->set;
    for (size_t i = 0; i < set.enabled.size(); ++i) {
      BERTH_RETURN_IF_ERROR(
          instantiate(set.enabled[i].name, prefix + ".plugins." + std::string(point.config->name) +
                                               ".enabled[" + std::to_string(i) + "]"));
    }
  }
  for (const auto& pc : profile.plugin_config) {
    if (!plugins_.count(pc.name) && registry.Find(pc.name) == nullptr) {
      return Error{pc.path + ": unknown plugin \"" + pc.name +
                   "\"; known plugins: " + Join(registry.Names())};
    }
  }
  return {};
}

Result<std::vector<std::string>> Framework::OrderedPlugins(const config::Plugins& plugins,
                                                           const Point& point,
                                                           const std::string& prefix) const {
  const auto& set = plugins.*point.config->set;
  const std::string point_path = prefix + ".plugins." + std::string(point.config->name);
  auto implements = [&](const std::string& name) {
    return point.implements(plugins_.find(name)->second.get());
  };
  std::vector<std::string> specific;
  std::set<std::string> specific_set;
  for (size_t i = 0; i < set.enabled.size(); ++i) {
    const auto& name = set.enabled[i].name;
    const std::string where = point_path + ".enabled[" + std::to_string(i) + "]";
    if (!implements(name)) {
      return Error{where + ": plugin \"" + name + "\" does not extend " +
                   std::string(point.interface_name)};
    }
    if (!specific_set.insert(name).second) {
      return Error{where + ": plugin \"" + name + "\" already registered as \"" +
                   std::string(point.interface_name) + "\""};
    }
    specific.push_back(name);
  }
  std::set<std::string> disabled(set.disabled.begin(), set.disabled.end());
  if (disabled.count("*")) return specific;
  std::set<std::string> overrides;
  std::vector<std::string> from_multi;
  std::set<std::string> from_multi_set;
  for (const auto& r : plugins.multi_point.enabled) {
    if (!implements(r.name) || disabled.count(r.name)) continue;
    if (specific_set.count(r.name)) {
      overrides.insert(r.name);
      continue;
    }
    if (!from_multi_set.insert(r.name).second) {
      return Error{prefix + ".plugins.multiPoint: plugin \"" + r.name +
                   "\" already registered as \"" + std::string(point.interface_name) + "\""};
    }
    from_multi.push_back(r.name);
  }
  std::vector<std::string> ordered;
  for (const auto& n : specific) {
    if (overrides.count(n)) ordered.push_back(n);
  }
  for (const auto& n : from_multi) ordered.push_back(n);
  for (const auto& n : specific) {
    if (!overrides.count(n)) ordered.push_back(n);
  }
  return ordered;
}

Result<std::unique_ptr<Framework>> Framework::Create(const config::Profile& profile,
                                                     int profile_index,
                                                     int32_t global_percentage_of_nodes_to_score,
                                                     const framework::Registry& registry,
                                                     const Deps& deps) {
  std::unique_ptr<Framework> f(new Framework(deps));
  f->scheduler_name_ = profile.scheduler_name;
  f->percentage_ =
      profile.percentage_of_nodes_to_score.value_or(global_percentage_of_nodes_to_score);
  const std::string prefix = "profiles[" + std::to_string(profile_index) + "]";
  const auto& plugins = profile.plugins;

  // 1. Every plugin named anywhere is instantiated once.
  BERTH_RETURN_IF_ERROR(f->InstantiatePlugins(profile, prefix, registry));

  // 2. Expand multiPoint per extension point, and keep each point's plugins in its list.
  for (const Point& point : Points()) {
    BERTH_ASSIGN_OR_RETURN(auto ordered, f->OrderedPlugins(plugins, point, prefix));
    for (const auto& name : ordered) point.add(*f, f->plugins_[name].get());
    if (f->queue_sorts_.size() > 1) {
      return Error{prefix + ".plugins.queueSort: only one queue sort plugin can be enabled"};
    }
  }
  if (f->queue_sorts_.empty()) {
    return Error{prefix + ".plugins.queueSort: no queue sort plugin is enabled"};
  }
  f->queue_sort_ = f->queue_sorts_.front();
  for (const auto* p : f->filter_) {
    f->filter_explainers_.push_back(dynamic_cast<const framework::FilterExplainer*>(p));
  }
  if (f->bind_.empty()) {
    return Error{prefix + ".plugins.bind: at least one bind plugin is needed"};
  }

  // 3. Score weights: the score point's own entry, else the multiPoint entry, else 1.
  std::map<std::string, int64_t, std::less<>> weights;
  for (const auto& r : plugins.score.enabled) {
    if (r.weight != 0) weights[r.name] = r.weight;
  }
  for (const auto& r : plugins.multi_point.enabled) {
    if (r.weight != 0 && !weights.count(r.name)) weights[r.name] = r.weight;
  }
  for (const auto* p : f->score_) {
    auto it = weights.find(p->Name());
    f->score_weights_.push_back(it == weights.end() ? 1 : it->second);
  }
  return f;
}

// ---- queue side ----

Status Framework::RunPreEnqueuePlugins(const framework::PodInfo& pod) const {
  for (const auto* p : pre_enqueue_) {
    Status s = p->PreEnqueue(pod);
    if (!s.IsSuccess()) {
      s.WithPlugin(p->Name());
      if (!s.IsRejected()) {
        return Status::Error("running PreEnqueue plugin \"" + std::string(p->Name()) +
                             "\": " + s.Message())
            .WithPlugin(p->Name());
      }
      return s;
    }
  }
  return Status();
}

bool Framework::Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  return queue_sort_->Less(a, b);
}

std::map<std::string, std::vector<framework::ClusterEventWithHint>, std::less<>> Framework::Events()
    const {
  std::map<std::string, std::vector<framework::ClusterEventWithHint>, std::less<>> out;
  for (const auto& [name, p] : plugins_) {
    if (const auto* e = dynamic_cast<const framework::EnqueueExtensions*>(p.get())) {
      out[name] = e->EventsToRegister();
    }
  }
  return out;
}

// ---- scheduling cycle ----

Status Framework::RunPreFilterPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                      framework::PreFilterResult* result,
                                      std::vector<std::string>* plugins_with_nodes) const {
  return AtPoint(metrics::kPreFilter, [&]() -> Status {
    *result = framework::PreFilterResult();
    state.skip_filter_plugins.clear();
    state.skip_filter_mask = 0;
    Status returned = RunPreFilterLoop(state, pod, result, plugins_with_nodes);
    for (size_t i = 0; i < filter_.size() && i < 64; ++i) {
      if (state.skip_filter_plugins.count(filter_[i]->Name())) {
        state.skip_filter_mask |= 1ull << i;
      } else {
        Evaluated(filter_[i]->Name(), metrics::kFilter);
      }
    }
    return returned;
  });
}

Status Framework::RunPreFilterLoop(framework::CycleState& state, const framework::PodInfo& pod,
                                   framework::PreFilterResult* result,
                                   std::vector<std::string>* plugins_with_nodes) const {
  Status returned;
  const auto& nodes = deps_.snapshot->List();
  for (const auto* p : pre_filter_) {
    framework::PreFilterResult r;
    Status s = Timed(state, p->Name(), metrics::kPreFilter,
                     [&] { return p->PreFilter(state, pod, nodes, &r); });
    if (s.IsSkip()) {
      state.skip_filter_plugins.emplace(p->Name());
      continue;
    }
    Evaluated(p->Name(), metrics::kPreFilter);
    if (!s.IsSuccess()) {
      s.WithPlugin(p->Name());
      if (s.code() == Code::kUnschedulableAndUnresolvable) return s;
      if (s.code() == Code::kUnschedulable) {
        // Keep running: preemption may still need the state of later PreFilter plugins.
        returned = std::move(s);
        continue;
      }
      return Status::Error("running PreFilter plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
    if (r.AllNodes()) continue;
    plugins_with_nodes->emplace_back(p->Name());
    if (result->AllNodes()) {
      result->node_names = std::move(r.node_names);
    } else {
      std::set<std::string, std::less<>> both;
      for (const auto& n : *result->node_names) {
        if (r.node_names->count(n)) both.insert(n);
      }
      result->node_names = std::move(both);
    }
    if (result->node_names->empty()) {
      std::string msg = plugins_with_nodes->size() == 1
                            ? "node(s) didn't satisfy plugin " + plugins_with_nodes->front()
                            : "node(s) didn't satisfy plugin(s) " + GoList(*plugins_with_nodes) +
                                  " simultaneously";
      return Status(Code::kUnschedulableAndUnresolvable, msg);
    }
  }
  return returned;
}

Status Framework::RunFilterPlugins(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   const framework::NodeInfo& node) const {
  // Runs per plugin per node: forced inline (GCC stopped inlining it as this file grew, which cost
  // the node search a few percent).
  auto run = [&](const framework::FilterPlugin* p) __attribute__((always_inline))->Status {
    Status s = p->Filter(state, pod, node);
    if (s.IsSuccess() || s.IsRejected()) return s;
    return Status::Error("running \"" + std::string(p->Name()) +
                         "\" filter plugin: " + s.Message());
  };
  // Walk only the set bits of the plugins not skipped this cycle: a pod that most Filter plugins
  // skip (no volumes, no affinity, ...) pays nothing per node for them.
  const size_t n = filter_.size();
  uint64_t active = (n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1) & ~state.skip_filter_mask;
  while (active != 0) {
    const int i = std::countr_zero(active);
    active &= active - 1;
    Status s = run(filter_[i]);
    if (!s.IsSuccess()) return std::move(s).WithPlugin(filter_[i]->Name());
  }
  for (size_t i = 64; i < n; ++i) {  // never skipped, as before
    Status s = run(filter_[i]);
    if (!s.IsSuccess()) return std::move(s).WithPlugin(filter_[i]->Name());
  }
  return Status();
}

namespace {

// The explainer's needs for one rejection, completed so that every reason of the status appears
// once (reasons it did not explain get an empty need and gap 1).
std::vector<framework::FilterNeed> NeedsOf(const framework::FilterExplainer* e,
                                           const framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const framework::NodeInfo& node, const Status& s) {
  std::vector<framework::FilterNeed> needs;
  if (e != nullptr) e->ExplainFilter(state, pod, node, s, framework::ExplainDetail::kFull, &needs);
  for (const std::string& reason : s.reasons()) {
    bool covered = false;
    for (const auto& n : needs) covered |= n.reason == reason;
    if (!covered) needs.push_back({reason, std::string(), 1.0});
  }
  return needs;
}

}  // namespace

std::vector<Framework::Rejection> Framework::ExplainNode(const framework::CycleState& state,
                                                         const framework::PodInfo& pod,
                                                         const framework::NodeInfo& node) const {
  std::vector<Rejection> out;
  for (size_t i = 0; i < filter_.size(); ++i) {
    if (i < 64 && (state.skip_filter_mask >> i & 1) != 0) continue;
    Status s = filter_[i]->Filter(state, pod, node);
    if (!s.IsRejected()) continue;
    out.push_back(
        {std::string(filter_[i]->Name()), NeedsOf(filter_explainers_[i], state, pod, node, s)});
  }
  return out;
}

double Framework::RejectionGap(const framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeInfo& node, const Status& s) const {
  const double unexplained = static_cast<double>(std::max<size_t>(1, s.reasons().size()));
  for (size_t i = 0; i < filter_.size(); ++i) {
    if (filter_[i]->Name() != s.plugin()) continue;
    if (filter_explainers_[i] == nullptr) return unexplained;
    // Called for every rejected node: one buffer per thread, so the ranking allocates nothing
    // once warm (an explainer in kGapOnly mode fills no text).
    thread_local std::vector<framework::FilterNeed> needs;
    needs.clear();
    filter_explainers_[i]->ExplainFilter(state, pod, node, s, framework::ExplainDetail::kGapOnly,
                                         &needs);
    double gap = 0;
    for (const auto& n : needs) gap += n.gap;
    // Reasons the explainer left out count 1 each.
    if (needs.size() < s.reasons().size()) {
      gap += static_cast<double>(s.reasons().size() - needs.size());
    }
    return gap;
  }
  return unexplained;
}

// Upstream's addGENominatedPods: a copy of the node and state with the nominated pods of priority
// >= the pod's (other than the pod itself) added. False when there were none.
namespace {
bool AddGENominatedPods(const Framework& f, const framework::PodInfo& pod,
                        const framework::CycleState& state, const framework::NodeInfo& node,
                        std::unique_ptr<framework::CycleState>* state_out,
                        std::unique_ptr<framework::NodeInfo>* node_out, Status* error) {
  if (node.node() == nullptr) return false;
  auto nominated = f.NominatedPodsForNode(node.name());
  if (nominated.empty()) return false;
  bool added = false;
  for (const auto& pi : nominated) {
    if (pi->Pod().Priority() < pod.Pod().Priority() || pi->Uid() == pod.Uid()) continue;
    if (!added) {
      *state_out = state.Clone();
      *node_out = std::make_unique<framework::NodeInfo>(node);
      added = true;
    }
    (*node_out)->AddPod(pi);
    Status s = f.RunPreFilterExtensionAddPod(**state_out, pod, *pi, **node_out);
    if (!s.IsSuccess()) {
      *error = std::move(s);
      return false;
    }
  }
  return added;
}
}  // namespace

Status Framework::RunFilterPluginsWithNominatedPods(const framework::CycleState& state,
                                                    const framework::PodInfo& pod,
                                                    const framework::NodeInfo& node) const {
  // Run once with the nominated pods of >= priority added (they must fit too), and if that
  // passes, once more without them (anti-affinity-like filters may pass only with them absent).
  std::unique_ptr<framework::CycleState> state_with;
  std::unique_ptr<framework::NodeInfo> node_with;
  Status error;
  const bool added = AddGENominatedPods(*this, pod, state, node, &state_with, &node_with, &error);
  if (!error.IsSuccess()) return error;
  if (!added) return RunFilterPlugins(state, pod, node);
  Status s = RunFilterPlugins(*state_with, pod, *node_with);
  if (!s.IsSuccess()) return s;
  return RunFilterPlugins(state, pod, node);
}

Status Framework::RunPreFilterExtensionAddPod(framework::CycleState& state,
                                              const framework::PodInfo& pod_to_schedule,
                                              const framework::PodInfo& pod_to_add,
                                              const framework::NodeInfo& node) const {
  for (const auto* p : pre_filter_) {
    const auto* ext = p->Extensions();
    if (ext == nullptr || state.skip_filter_plugins.count(p->Name())) continue;
    Status s = ext->AddPod(state, pod_to_schedule, pod_to_add, node);
    if (!s.IsSuccess()) {
      return Status::Error("running AddPod on PreFilter plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
  }
  return Status();
}

Status Framework::RunPreFilterExtensionRemovePod(framework::CycleState& state,
                                                 const framework::PodInfo& pod_to_schedule,
                                                 const framework::PodInfo& pod_to_remove,
                                                 const framework::NodeInfo& node) const {
  for (const auto* p : pre_filter_) {
    const auto* ext = p->Extensions();
    if (ext == nullptr || state.skip_filter_plugins.count(p->Name())) continue;
    Status s = ext->RemovePod(state, pod_to_schedule, pod_to_remove, node);
    if (!s.IsSuccess()) {
      return Status::Error("running RemovePod on PreFilter plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
  }
  return Status();
}

std::vector<framework::PodInfoPtr> Framework::NominatedPodsForNode(const std::string& node) const {
  if (deps_.nominator == nullptr || !deps_.nominator->HasNominatedPods()) return {};
  return deps_.nominator->NominatedPodsForNode(node);
}

void Framework::RunAsync(std::function<void()> fn) {
  if (deps_.run_async) {
    deps_.run_async(std::move(fn));
  } else {
    fn();
  }
}

Status Framework::RunPostFilterPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                       const framework::NodeToStatus& statuses,
                                       framework::PostFilterResult* result) const {
  return AtPoint(metrics::kPostFilter, [&]() -> Status {
    std::vector<std::string> reasons;
    for (const auto* p : post_filter_) {
      framework::PostFilterResult r;
      Status s = p->PostFilter(state, pod, statuses, &r);
      if (s.IsSuccess()) {
        *result = r;
        return s;
      }
      if (s.code() == Code::kUnschedulableAndUnresolvable) {
        *result = r;
        return std::move(s).WithPlugin(p->Name());
      }
      if (!s.IsRejected()) {
        return Status::Error(s.Message()).WithPlugin(p->Name());
      }
      for (const auto& r2 : s.reasons()) reasons.push_back(r2);
      if (r.mode == framework::PostFilterResult::Mode::kOverride) *result = r;
    }
    return Status(Code::kUnschedulable, std::move(reasons));
  });
}

Status Framework::RunPreScorePlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                     const std::vector<const framework::NodeInfo*>& nodes) const {
  return AtPoint(metrics::kPreScore, [&]() -> Status {
    state.skip_score_plugins.clear();
    for (const auto* p : pre_score_) {
      Status s = Timed(state, p->Name(), metrics::kPreScore,
                       [&] { return p->PreScore(state, pod, nodes); });
      if (s.IsSkip()) {
        state.skip_score_plugins.emplace(p->Name());
        continue;
      }
      Evaluated(p->Name(), metrics::kPreScore);
      if (!s.IsSuccess()) {
        return Status::Error("running PreScore plugin \"" + std::string(p->Name()) +
                             "\": " + s.Message())
            .WithPlugin(p->Name());
      }
    }
    return Status();
  });
}

Status Framework::RunScorePlugins(const framework::CycleState& state, const framework::PodInfo& pod,
                                  const std::vector<const framework::NodeInfo*>& nodes,
                                  ScoreTable* out) const {
  return AtPoint(metrics::kScore, [&]() -> Status {
    // Plugins that run this cycle, with their weights (at most a few dozen: no allocation once
    // the table's vectors have grown).
    out->plugins.clear();
    std::vector<const framework::ScorePlugin*> active;
    std::vector<int64_t> weights;
    active.reserve(score_.size());
    weights.reserve(score_.size());
    for (size_t i = 0; i < score_.size(); ++i) {
      if (!state.skip_score_plugins.empty() && state.skip_score_plugins.count(score_[i]->Name())) {
        continue;
      }
      active.push_back(score_[i]);
      weights.push_back(score_weights_[i]);
      out->plugins.push_back(score_[i]->Name());
      Evaluated(score_[i]->Name(), metrics::kScore);
    }
    const size_t np = active.size();
    const size_t nn = nodes.size();
    out->num_nodes = nn;
    if (out->per_plugin.size() < np) out->per_plugin.resize(np);
    // Plugins that score this pod the same everywhere are not called per node.
    out->uniform.assign(np, std::nullopt);
    std::vector<size_t> per_node;
    per_node.reserve(np);
    for (size_t k = 0; k < np; ++k) {
      out->uniform[k] = active[k]->UniformScore(state, pod);
      if (out->uniform[k]) {
        out->per_plugin[k].clear();
      } else {
        out->per_plugin[k].resize(nn);
        per_node.push_back(k);
      }
    }
    std::mutex err_mu;
    std::optional<Status> error;
    std::atomic<bool> stop{false};
    if (!per_node.empty()) {
      deps_.parallelizer->Until(
          static_cast<int>(nn),
          [&](int i) {
            const auto idx = static_cast<size_t>(i);
            const framework::NodeInfo& node = *nodes[idx];
            for (const size_t k : per_node) {
              int64_t score = 0;
              Status s = active[k]->Score(state, pod, node, &score);
              if (!s.IsSuccess()) {
                std::lock_guard lock(err_mu);
                if (!error) {
                  error = Status::Error("plugin \"" + std::string(active[k]->Name()) +
                                        "\" failed with: " + s.Message());
                }
                stop = true;
                return;
              }
              out->per_plugin[k][idx] = framework::NodeScore{&node.name(), score};
            }
          },
          &stop);
    }
    if (error) return *error;
    for (const size_t k : per_node) {
      if (!active[k]->HasNormalizeScore()) continue;
      Status s = active[k]->NormalizeScore(state, pod, out->per_plugin[k]);
      if (!s.IsSuccess()) {
        return Status::Error("plugin \"" + std::string(active[k]->Name()) +
                             "\" failed with: " + s.Message());
      }
    }
    auto invalid = [&](size_t k, int64_t score) {
      return Status::Error("plugin \"" + std::string(active[k]->Name()) +
                           "\" returns an invalid score " + std::to_string(score) +
                           ", it should in the range of [0, 100] after normalizing");
    };
    auto in_range = [](int64_t score) {
      return score <= framework::kMaxNodeScore && score >= framework::kMinNodeScore;
    };
    int64_t base = 0;  // the uniform plugins' weighted sum, the same on every node
    for (size_t k = 0; k < np; ++k) {
      if (!out->uniform[k]) continue;
      if (nn > 0 && !in_range(*out->uniform[k])) return invalid(k, *out->uniform[k]);
      base += *out->uniform[k] * weights[k];
    }
    out->totals.assign(nn, base);
    for (const size_t k : per_node) {
      const auto& list = out->per_plugin[k];
      const int64_t w = weights[k];
      for (size_t i = 0; i < nn; ++i) {
        const int64_t score = list[i].score;
        if (!in_range(score)) return invalid(k, score);
        out->totals[i] += score * w;
      }
    }
    return Status();
  });
}

Status Framework::RunReservePluginsReserve(framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const std::string& node) const {
  return AtPoint(metrics::kReserve, [&]() -> Status {
    for (const auto* p : reserve_) {
      Status s =
          Timed(state, p->Name(), metrics::kReserve, [&] { return p->Reserve(state, pod, node); });
      if (!s.IsSuccess()) {
        if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
        return Status::Error("running Reserve plugin \"" + std::string(p->Name()) +
                             "\": " + s.Message())
            .WithPlugin(p->Name());
      }
    }
    return Status();
  });
}

void Framework::RunReservePluginsUnreserve(framework::CycleState& state,
                                           const framework::PodInfo& pod,
                                           const std::string& node) const {
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) {
    (*it)->Unreserve(state, pod, node);
  }
}

Status Framework::RunPermitPlugins(framework::CycleState& state, framework::PodInfoPtr pod,
                                   const std::string& node) {
  return AtPoint(metrics::kPermit, [&]() -> Status {
    std::map<std::string, framework::TimePoint> deadlines;
    const framework::TimePoint now = deps_.clock->Now();
    for (const auto* p : permit_) {
      framework::Duration timeout{0};
      Status s = Timed(state, p->Name(), metrics::kPermit,
                       [&] { return p->Permit(state, *pod, node, &timeout); });
      if (s.IsSuccess()) continue;
      if (s.IsWait()) {
        // Upstream caps every plugin's wait at 15 minutes.
        timeout = std::min(timeout, framework::kMaxPermitTimeout);
        deadlines[std::string(p->Name())] = now + timeout;
        continue;
      }
      if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
      return Status::Error("running Permit plugin \"" + std::string(p->Name()) +
                           "\": " + s.Message())
          .WithPlugin(p->Name());
    }
    if (deadlines.empty()) return Status();
    auto wp = std::make_shared<framework::WaitingPod>(pod, node, std::move(deadlines), now);
    {
      std::lock_guard lock(waiting_mu_);
      waiting_[pod->Uid()] = std::move(wp);
    }
    return Status(Code::kWait, "one or more plugins asked to wait and no plugin rejected pod \"" +
                                   pod->Name() + "\"");
  });
}

// ---- binding cycle ----

Status Framework::WaitOnPermit(const framework::PodInfo& pod) {
  auto wp = WaitingPodFor(pod.Uid());
  if (!wp) return Status();
  Status s = wp->Wait();
  {
    std::lock_guard lock(waiting_mu_);
    auto it = waiting_.find(pod.Uid());
    if (it != waiting_.end() && it->second == wp) waiting_.erase(it);
  }
  return s;
}

std::shared_ptr<framework::WaitingPod> Framework::WaitingPodFor(const std::string& uid) {
  std::lock_guard lock(waiting_mu_);
  auto it = waiting_.find(uid);
  return it == waiting_.end() ? nullptr : it->second;
}

Status Framework::RunPreBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                    const std::string& node) const {
  return AtPoint(metrics::kPreBind, [&]() -> Status {
    for (const auto* p : pre_bind_) {
      Status s =
          Timed(state, p->Name(), metrics::kPreBind, [&] { return p->PreBind(state, pod, node); });
      if (!s.IsSuccess()) {
        if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
        return Status::Error("running PreBind plugin \"" + std::string(p->Name()) +
                             "\": " + s.Message())
            .WithPlugin(p->Name());
      }
    }
    return Status();
  });
}

Status Framework::RunBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                 const std::string& node) const {
  return AtPoint(metrics::kBind, [&]() -> Status {
    for (const auto* p : bind_) {
      Status s = Timed(state, p->Name(), metrics::kBind, [&] { return p->Bind(state, pod, node); });
      if (s.IsSkip()) continue;
      if (!s.IsSuccess()) {
        if (s.IsRejected()) return std::move(s).WithPlugin(p->Name());
        // The wrapped error keeps PodGone (an Error all the same for the failure handler).
        std::string msg = "running Bind plugin \"" + std::string(p->Name()) + "\": " + s.Message();
        return (s.IsPodGone() ? Status::PodGone(std::move(msg)) : Status::Error(std::move(msg)))
            .WithPlugin(p->Name());
      }
      return s;
    }
    return Status(Code::kSkip, "all bind plugins skipped the pod");
  });
}

void Framework::RunPostBindPlugins(framework::CycleState& state, const framework::PodInfo& pod,
                                   const std::string& node) const {
  for (const auto* p : post_bind_) p->PostBind(state, pod, node);
}

std::optional<framework::TimePoint> Framework::ExpireWaitingPods(framework::TimePoint now) {
  std::vector<std::shared_ptr<framework::WaitingPod>> pods;
  {
    std::lock_guard lock(waiting_mu_);
    for (const auto& [uid, wp] : waiting_) pods.push_back(wp);
  }
  std::optional<framework::TimePoint> next;
  for (const auto& wp : pods) {
    wp->ExpireIfDue(now);
    auto d = wp->NextDeadline();
    if (d && (!next || *d < *next)) next = d;
  }
  return next;
}

size_t Framework::NumWaitingPods() const {
  std::lock_guard lock(waiting_mu_);
  return waiting_.size();
}

void Framework::IterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>& fn) {
  std::vector<std::shared_ptr<framework::WaitingPod>> pods;
  {
    std::lock_guard lock(waiting_mu_);
    for (const auto& [uid, wp] : waiting_) pods.push_back(wp);
  }
  for (const auto& wp : pods) fn(*wp);
}

std::shared_ptr<framework::WaitingPod> Framework::GetWaitingPod(const std::string& uid) {
  return WaitingPodFor(uid);
}

void Framework::RejectWaitingPod(const std::string& uid, const std::string& plugin,
                                 const std::string& msg) {
  if (auto wp = WaitingPodFor(uid)) wp->Reject(plugin, msg);
}

std::map<std::string, std::vector<std::string>> Framework::PluginNamesByPoint() const {
  std::map<std::string, std::vector<std::string>> out;
  for (const Point& point : Points()) {
    std::vector<std::string> names;
    point.names(*this, &names);
    if (!names.empty()) out[std::string(point.config->name)] = std::move(names);
  }
  return out;
}

int64_t Framework::ScoreWeight(const std::string& plugin) const {
  for (size_t i = 0; i < score_.size(); ++i) {
    if (score_[i]->Name() == plugin) return score_weights_[i];
  }
  return 0;
}

}  // namespace berth::runtime
