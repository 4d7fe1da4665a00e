// Profile building (multiPoint expansion, enable/disable, weights) and the extension-point loops
// of runtime::Framework, with small fake plugins.

#include "scheduler/runtime/framework.h"

#include <gtest/gtest.h>

#include "config/load.h"
#include "test/testing/builders.h"

namespace berth::runtime {
namespace {

using framework::Code;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;

// A plugin implementing every point; its behaviour is set through the args object:
//   {"filter": "reject"|"error"|"skip-prefilter", "score": N, "uniform": N,
//    "permit": "wait"|"reject", "reserve": "fail", "nodes": ["n1"]}
class Fake : public framework::PreEnqueuePlugin,
             public framework::PreFilterPlugin,
             public framework::FilterPlugin,
             public framework::PreScorePlugin,
             public framework::ScorePlugin,
             public framework::ReservePlugin,
             public framework::PermitPlugin,
             public framework::BindPlugin {
 public:
  Fake(std::string name, const api::Value* args, std::vector<std::string>* log)
      : name_(std::move(name)), log_(log) {
    if (args == nullptr) return;
    if (const auto* v = args->Find("filter")) filter_ = v->AsString();
    if (const auto* v = args->Find("score")) score_ = v->AsInt();
    if (const auto* v = args->Find("uniform")) uniform_ = v->AsInt();
    if (const auto* v = args->Find("permit")) permit_ = v->AsString();
    if (const auto* v = args->Find("reserve")) reserve_ = v->AsString();
    if (const auto* v = args->Find("nodes")) {
      nodes_.emplace();
      for (const auto& n : v->AsArray()) nodes_->insert(n.AsString());
    }
  }
  std::string_view Name() const override { return name_; }
  Status PreEnqueue(const framework::PodInfo&) const override { return {}; }
  Status PreFilter(framework::CycleState&, const framework::PodInfo&,
                   const std::vector<const framework::NodeInfo*>&,
                   framework::PreFilterResult* r) const override {
    log_->push_back(name_ + ".PreFilter");
    if (filter_ == "skip-prefilter") return Status::Skip();
    if (filter_ == "prefilter-unschedulable") return Status::Unschedulable("pre says no");
    if (nodes_) r->node_names = *nodes_;
    return {};
  }
  Status Filter(const framework::CycleState&, const framework::PodInfo&,
                const framework::NodeInfo& n) const override {
    if (filter_ == "reject") return Status::Unschedulable("fake rejects " + n.name());
    if (filter_ == "error") return Status::Error("boom");
    return {};
  }
  Status PreScore(framework::CycleState&, const framework::PodInfo&,
                  const std::vector<const framework::NodeInfo*>&) const override {
    return {};
  }
  Status Score(const framework::CycleState&, const framework::PodInfo&, const framework::NodeInfo&,
               int64_t* score) const override {
    // A plugin that knows its uniform score must not be asked per node.
    if (uniform_) return Status::Error("Score called although the score is uniform");
    *score = score_;
    return {};
  }
  std::optional<int64_t> UniformScore(const framework::CycleState&,
                                      const framework::PodInfo&) const override {
    return uniform_;
  }
  Status Reserve(framework::CycleState&, const framework::PodInfo&,
                 const std::string&) const override {
    log_->push_back(name_ + ".Reserve");
    if (reserve_ == "fail") return Status::Unschedulable("no room");
    return {};
  }
  void Unreserve(framework::CycleState&, const framework::PodInfo&,
                 const std::string&) const override {
    log_->push_back(name_ + ".Unreserve");
  }
  Status Permit(framework::CycleState&, const framework::PodInfo&, const std::string&,
                framework::Duration* timeout) const override {
    if (permit_ == "wait") {
      *timeout = std::chrono::seconds(10);
      return Status::Wait();
    }
    if (permit_ == "reject") return Status::Unschedulable("not now");
    return {};
  }
  Status Bind(framework::CycleState&, const framework::PodInfo&,
              const std::string&) const override {
    log_->push_back(name_ + ".Bind");
    return {};
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  std::string filter_, permit_, reserve_;
  std::optional<int64_t> uniform_;
  int64_t score_ = 0;
  std::optional<std::set<std::string, std::less<>>> nodes_;
};

// The one queue-sort plugin of a profile.
class Sort final : public Fake, public framework::QueueSortPlugin {
 public:
  using Fake::Fake;
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    return a.seq < b.seq;
  }
};

// Filter only, to check that multiPoint does not add it to points it does not implement.
class FilterOnly final : public framework::FilterPlugin {
 public:
  std::string_view Name() const override { return "FilterOnly"; }
  Status Filter(const framework::CycleState&, const framework::PodInfo&,
                const framework::NodeInfo&) const override {
    return {};
  }
};

class FrameworkTest : public ::testing::Test {
 protected:
  FrameworkTest() : parallelizer_(2) {
    for (const char* name : {"A", "B", "C", "Sort"}) {
      std::string n = name;
      (void)registry_.Register(n, [this, n](const framework::PluginContext& ctx) {
        if (n == "Sort") {
          return Result<std::shared_ptr<framework::Plugin>>(
              std::make_shared<Sort>(n, ctx.args, &log_));
        }
        return Result<std::shared_ptr<framework::Plugin>>(
            std::make_shared<Fake>(n, ctx.args, &log_));
      });
    }
    (void)registry_.Register("FilterOnly", [](const framework::PluginContext&) {
      return Result<std::shared_ptr<framework::Plugin>>(std::make_shared<FilterOnly>());
    });
    deps_.snapshot = &snapshot_;
    deps_.objects = &objects_;
    deps_.clock = &clock_;
    deps_.parallelizer = &parallelizer_;
  }

  Result<std::unique_ptr<Framework>> Build(const std::string& yaml) {
    auto cfg = config::ParseConfig(yaml, "test.yaml", registry_.Names());
    if (!cfg.ok()) return Error{cfg.error()};
    return Framework::Create(cfg->profiles[0], 0, 0, registry_, deps_);
  }

  framework::Registry registry_;
  std::vector<std::string> log_;
  framework::Snapshot snapshot_;
  api::ClusterObjects objects_;
  framework::FakeClock clock_;
  framework::Parallelizer parallelizer_;
  Deps deps_;
};

constexpr const char kHeader[] =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "profiles:\n"
    "- schedulerName: s\n";

TEST_F(FrameworkTest, MultiPointExpandsOnlyToImplementedPoints) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A, weight: 3}, {name: FilterOnly}]\n");
  ASSERT_TRUE(f.ok()) << f.error();
  auto points = (*f)->PluginNamesByPoint();
  EXPECT_EQ(points["filter"], (std::vector<std::string>{"Sort", "A", "FilterOnly"}));
  EXPECT_EQ(points["score"], (std::vector<std::string>{"Sort", "A"}));
  EXPECT_EQ(points["queueSort"], (std::vector<std::string>{"Sort"}));
  EXPECT_EQ((*f)->ScoreWeight("A"), 3);
  EXPECT_EQ((*f)->ScoreWeight("Sort"), 1);  // weight 0 means 1
}

TEST_F(FrameworkTest, SpecificPointOverridesMultiPointOrderAndWeight) {
  // Upstream's order: overrides first, then multiPoint plugins, then other specific ones.
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A, weight: 3}, {name: B}]\n"
                 "    score:\n"
                 "      enabled: [{name: C, weight: 5}, {name: B, weight: 7}]\n"
                 "      disabled: [{name: A}]\n");
  ASSERT_TRUE(f.ok()) << f.error();
  auto points = (*f)->PluginNamesByPoint();
  EXPECT_EQ(points["score"], (std::vector<std::string>{"B", "Sort", "C"}));
  EXPECT_EQ((*f)->ScoreWeight("B"), 7);
  EXPECT_EQ((*f)->ScoreWeight("C"), 5);
  EXPECT_EQ(points["filter"], (std::vector<std::string>{"Sort", "A", "B"}));
}

TEST_F(FrameworkTest, WildcardDisablesMultiPointAtOnePoint) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}]\n"
                 "    filter:\n"
                 "      disabled: [{name: '*'}]\n"
                 "      enabled: [{name: FilterOnly}]\n");
  ASSERT_TRUE(f.ok()) << f.error();
  auto points = (*f)->PluginNamesByPoint();
  EXPECT_EQ(points["filter"], (std::vector<std::string>{"FilterOnly"}));
  EXPECT_EQ(points["preFilter"], (std::vector<std::string>{"Sort", "A"}));
}

TEST_F(FrameworkTest, PluginAtPointItDoesNotImplementIsAnError) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}]\n"
                 "    score:\n"
                 "      enabled: [{name: FilterOnly}]\n");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(),
            "profiles[0].plugins.score.enabled[0]: plugin \"FilterOnly\" does not extend "
            "ScorePlugin");
}

TEST_F(FrameworkTest, MissingQueueSortOrBindIsAnError) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: FilterOnly}]\n");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(), "profiles[0].plugins.queueSort: no queue sort plugin is enabled");
}

TEST_F(FrameworkTest, PreFilterResultsIntersectAndEmptyIntersectionIsUnresolvable) {
  snapshot_ = framework::Snapshot();
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}, {name: B}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {nodes: [n1, n2]}}\n"
                 "  - {name: B, args: {nodes: [n2, n3]}}\n");
  ASSERT_TRUE(f.ok()) << f.error();
  framework::CycleState state;
  framework::PreFilterResult r;
  std::vector<std::string> with_nodes;
  auto pod = MakePod("p").Info();
  Status s = (*f)->RunPreFilterPlugins(state, *pod, &r, &with_nodes);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  ASSERT_FALSE(r.AllNodes());
  EXPECT_EQ(*r.node_names, (std::set<std::string, std::less<>>{"n2"}));
  EXPECT_EQ(with_nodes, (std::vector<std::string>{"A", "B"}));

  auto g = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}, {name: B}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {nodes: [n1]}}\n"
                 "  - {name: B, args: {nodes: [n3]}}\n");
  ASSERT_TRUE(g.ok());
  framework::CycleState state2;
  with_nodes.clear();
  s = (*g)->RunPreFilterPlugins(state2, *pod, &r, &with_nodes);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "node(s) didn't satisfy plugin(s) [A B] simultaneously");
}

TEST_F(FrameworkTest, PreFilterSkipSkipsTheFilter) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {filter: skip-prefilter}}\n");
  ASSERT_TRUE(f.ok());
  framework::CycleState state;
  framework::PreFilterResult r;
  std::vector<std::string> with_nodes;
  auto pod = MakePod("p").Info();
  ASSERT_TRUE((*f)->RunPreFilterPlugins(state, *pod, &r, &with_nodes).IsSuccess());
  EXPECT_TRUE(state.skip_filter_plugins.count("A"));
  auto node = MakeNode("n1").Info();
  EXPECT_TRUE((*f)->RunFilterPlugins(state, *pod, node).IsSuccess());
}

TEST_F(FrameworkTest, FilterStopsAtFirstRejectionAndNamesThePlugin) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}, {name: B}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {filter: reject}}\n"
                 "  - {name: B, args: {filter: error}}\n");
  ASSERT_TRUE(f.ok());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  auto node = MakeNode("n1").Info();
  Status s = (*f)->RunFilterPlugins(state, *pod, node);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(s.Message(), "fake rejects n1");
}

TEST_F(FrameworkTest, FilterErrorIsWrapped) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: B}]\n"
                 "  pluginConfig:\n"
                 "  - {name: B, args: {filter: error}}\n");
  ASSERT_TRUE(f.ok());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  auto node = MakeNode("n1").Info();
  Status s = (*f)->RunFilterPlugins(state, *pod, node);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "running \"B\" filter plugin: boom");
}

TEST_F(FrameworkTest, ScoresAreWeightedAndOutOfRangeIsAnError) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A, weight: 2}, {name: B, weight: 3}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {score: 10}}\n"
                 "  - {name: B, args: {score: 20}}\n");
  ASSERT_TRUE(f.ok());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  auto n1 = MakeNode("n1").Info();
  auto n2 = MakeNode("n2").Info();
  ScoreTable table;
  ASSERT_TRUE((*f)->RunScorePlugins(state, *pod, {&n1, &n2}, &table).IsSuccess());
  ASSERT_EQ(table.totals.size(), 2u);
  EXPECT_EQ(table.totals[0], 10 * 2 + 20 * 3);
  EXPECT_EQ(table.plugins, (std::vector<std::string_view>{"Sort", "A", "B"}));

  auto g = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {score: 101}}\n");
  ASSERT_TRUE(g.ok());
  Status s = (*g)->RunScorePlugins(state, *pod, {&n1}, &table);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "plugin \"A\" returns an invalid score 101, it should in the range of [0, 100] after "
            "normalizing");
}

TEST_F(FrameworkTest, UniformScoresCountOnEveryNodeWithoutPerNodeCalls) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A, weight: 2}, {name: B, weight: 3}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {score: 10}}\n"
                 "  - {name: B, args: {uniform: 7}}\n");
  ASSERT_TRUE(f.ok());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  auto n1 = MakeNode("n1").Info();
  auto n2 = MakeNode("n2").Info();
  ScoreTable table;
  Status s = (*f)->RunScorePlugins(state, *pod, {&n1, &n2}, &table);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(table.totals, (std::vector<int64_t>{10 * 2 + 7 * 3, 10 * 2 + 7 * 3}));
  ASSERT_EQ(table.plugins, (std::vector<std::string_view>{"Sort", "A", "B"}));
  EXPECT_EQ(table.Score(1, 1), 10);
  EXPECT_EQ(table.Score(2, 0), 7);
  EXPECT_EQ(table.Score(2, 1), 7);

  // A uniform score outside [0, 100] is refused like any other.
  auto g = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: B}]\n"
                 "  pluginConfig:\n"
                 "  - {name: B, args: {uniform: -1}}\n");
  ASSERT_TRUE(g.ok());
  s = (*g)->RunScorePlugins(state, *pod, {&n1}, &table);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "plugin \"B\" returns an invalid score -1, it should in the range of [0, 100] after "
            "normalizing");
}

// Records the extension-point observations; every other metric is dropped.
class PointRecorder final : public metrics::Recorder {
 public:
  void ExtensionPoint(std::string_view point, Code status, std::string_view profile,
                      double) override {
    points.push_back(std::string(point) + "/" + std::string(framework::CodeName(status)) + "/" +
                     std::string(profile));
  }
  std::vector<std::string> points;

  void ScheduleAttempt(std::string_view, std::string_view, double) override {}
  void SchedulingAlgorithm(double) override {}
  bool SamplePluginMetrics() override { return false; }
  void PluginExecution(std::string_view, std::string_view, Code, double) override {}
  void PluginEvaluation(std::string_view, std::string_view, std::string_view) override {}
  void PodScheduled(int, double) override {}
  void PreemptionAttempt() override {}
  void PreemptionVictims(int) override {}
  void PermitWait(Code, double) override {}
  void Goroutines(std::string_view, double) override {}
  void QueueIncomingPods(std::string_view, std::string_view, int64_t) override {}
  void UnschedulablePods(std::string_view, std::string_view, double) override {}
};

// As upstream's frameworkImpl, the Run*Plugins functions record
// scheduler_framework_extension_point_duration_seconds themselves (Filter excepted: its caller
// times the whole node search).
TEST_F(FrameworkTest, RunPluginsRecordTheirExtensionPointDuration) {
  PointRecorder recorder;
  deps_.metrics = &recorder;
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {reserve: fail}}\n");
  ASSERT_TRUE(f.ok()) << f.error();
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  auto n1 = MakeNode("n1").Info();
  framework::PreFilterResult r;
  std::vector<std::string> with_nodes;
  ScoreTable table;
  (void)(*f)->RunPreFilterPlugins(state, *pod, &r, &with_nodes);
  (void)(*f)->RunFilterPlugins(state, *pod, n1);
  (void)(*f)->RunPreScorePlugins(state, *pod, {&n1});
  (void)(*f)->RunScorePlugins(state, *pod, {&n1}, &table);
  (void)(*f)->RunReservePluginsReserve(state, *pod, "n1");
  (void)(*f)->RunPermitPlugins(state, pod, "n1");
  (void)(*f)->RunPreBindPlugins(state, *pod, "n1");
  (void)(*f)->RunBindPlugins(state, *pod, "n1");
  EXPECT_EQ(recorder.points,
            (std::vector<std::string>{"PreFilter/Success/s", "PreScore/Success/s",
                                      "Score/Success/s", "Reserve/Unschedulable/s",
                                      "Permit/Success/s", "PreBind/Success/s", "Bind/Success/s"}));
}

TEST_F(FrameworkTest, UnreserveRunsInReverseOrder) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}, {name: B}]\n"
                 "  pluginConfig:\n"
                 "  - {name: B, args: {reserve: fail}}\n");
  ASSERT_TRUE(f.ok());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  Status s = (*f)->RunReservePluginsReserve(state, *pod, "n1");
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "B");
  log_.clear();
  (*f)->RunReservePluginsUnreserve(state, *pod, "n1");
  EXPECT_EQ(log_, (std::vector<std::string>{"B.Unreserve", "A.Unreserve", "Sort.Unreserve"}));
}

TEST_F(FrameworkTest, PermitWaitRegistersAWaitingPodThatTimesOut) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {permit: wait}}\n");
  ASSERT_TRUE(f.ok());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  Status s = (*f)->RunPermitPlugins(state, pod, "n1");
  EXPECT_EQ(s.code(), Code::kWait);
  auto wp = (*f)->GetWaitingPod(pod->Uid());
  ASSERT_NE(wp, nullptr);
  EXPECT_EQ(wp->GetPendingPlugins(), (std::vector<std::string>{"A"}));
  clock_.Advance(std::chrono::seconds(9));
  (*f)->ExpireWaitingPods(clock_.Now());
  EXPECT_FALSE(wp->TryResult().has_value());
  clock_.Advance(std::chrono::seconds(1));
  (*f)->ExpireWaitingPods(clock_.Now());
  Status r = (*f)->WaitOnPermit(*pod);
  EXPECT_EQ(r.code(), Code::kUnschedulable);
  EXPECT_EQ(r.Message(), "rejected due to timeout after waiting 10s at plugin A");
  EXPECT_EQ((*f)->GetWaitingPod(pod->Uid()), nullptr);
}

TEST_F(FrameworkTest, PermitAllowLetsTheBindingGoOn) {
  auto f = Build(std::string(kHeader) +
                 "  plugins:\n"
                 "    multiPoint:\n"
                 "      enabled: [{name: Sort}, {name: A}]\n"
                 "  pluginConfig:\n"
                 "  - {name: A, args: {permit: wait}}\n");
  ASSERT_TRUE(f.ok());
  framework::CycleState state;
  auto pod = MakePod("p").Info();
  ASSERT_EQ((*f)->RunPermitPlugins(state, pod, "n1").code(), Code::kWait);
  std::thread allow([&] { (*f)->GetWaitingPod(pod->Uid())->Allow("A"); });
  EXPECT_TRUE((*f)->WaitOnPermit(*pod).IsSuccess());
  allow.join();
}

TEST_F(FrameworkTest, UnknownPluginListsKnownOnes) {
  auto cfg = config::ParseConfig(std::string(kHeader) +
                                     "  plugins:\n"
                                     "    multiPoint:\n"
                                     "      enabled: [{name: Sort}]\n",
                                 "test.yaml", registry_.Names());
  ASSERT_TRUE(cfg.ok()) << cfg.error();
  cfg->profiles[0].plugins.filter.enabled.push_back({"Nope", 0});
  auto f = Framework::Create(cfg->profiles[0], 0, 0, registry_, deps_);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(),
            "profiles[0].plugins.filter.enabled[0]: unknown plugin \"Nope\"; known plugins: A, B, "
            "C, FilterOnly, Sort");
}

}  // namespace
}  // namespace berth::runtime
