#include "scheduler/metrics/metrics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "prometheus/registry.h"

namespace berth::metrics {
namespace {

using framework::Code;

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// The exposition line for `series` (name plus label set), or "" when absent.
std::string Line(const std::string& text, const std::string& series) {
  size_t pos = 0;
  while ((pos = text.find(series + " ", pos)) != std::string::npos) {
    if (pos == 0 || text[pos - 1] == '\n') {
      size_t end = text.find('\n', pos);
      return text.substr(pos, end - pos);
    }
    pos += series.size();
  }
  return "";
}

// The sample value of `series`, or -1 when absent.
double Value(const std::string& text, const std::string& series) {
  std::string line = Line(text, series);
  if (line.empty()) return -1;
  return std::stod(line.substr(series.size() + 1));
}

TEST(ExponentialBucketsTest, MatchesPrometheus) {
  EXPECT_EQ(ExponentialBuckets(1, 2, 5), (std::vector<double>{1, 2, 4, 8, 16}));
  auto b = ExponentialBuckets(0.001, 2, 15);
  ASSERT_EQ(b.size(), 15u);
  EXPECT_DOUBLE_EQ(b.front(), 0.001);
  EXPECT_DOUBLE_EQ(b.back(), 16.384);
  EXPECT_TRUE(ExponentialBuckets(0, 2, 3).empty());
  EXPECT_TRUE(ExponentialBuckets(1, 1, 3).empty());
  EXPECT_TRUE(ExponentialBuckets(1, 2, 0).empty());
}

void RecordOneOfEach(SchedulerMetrics& m) {
  m.ScheduleAttempt(kScheduled, "default-scheduler", 0.01);
  m.SchedulingAlgorithm(0.01);
  m.ExtensionPoint(kFilter, Code::kSuccess, "default-scheduler", 0.001);
  m.PluginExecution("NodeResourcesFit", kFilter, Code::kSuccess, 0.0001);
  m.PluginEvaluation("NodeResourcesFit", kFilter, "default-scheduler");
  m.PodScheduled(1, 0.1);
  m.PreemptionAttempt();
  m.PreemptionVictims(1);
  m.PermitWait(Code::kSuccess, 0.001);
  m.Goroutines(kBinding, 1);
  m.PendingPods({});
  m.QueueIncomingPods(kActiveQueue, "PodAdd");
  m.UnschedulablePods("NodeResourcesFit", "default-scheduler", 1);
  m.CacheSize({});
  m.EventHandling("PodAdd", 0.0001);
  m.InformerWatchRestart("Pod");
  m.InformerRelist("Pod");
  m.InformerSynced("Pod");
  m.ApiRequest("GET", "pods", 200, 0.01);
  m.RateLimiterWait(0.01);
}

// Every family with upstream's type and help.
TEST(SchedulerMetricsTest, RegistersEveryFamilyWithItsType) {
  SchedulerMetrics m;
  RecordOneOfEach(m);
  std::string text = m.Serialize();
  struct Want {
    const char* name;
    const char* type;
  };
  const Want wants[] = {
      {"scheduler_schedule_attempts_total", "counter"},
      {"scheduler_scheduling_attempt_duration_seconds", "histogram"},
      {"scheduler_scheduling_algorithm_duration_seconds", "histogram"},
      {"scheduler_pending_pods", "gauge"},
      {"scheduler_queue_incoming_pods_total", "counter"},
      {"scheduler_framework_extension_point_duration_seconds", "histogram"},
      {"scheduler_plugin_execution_duration_seconds", "histogram"},
      {"scheduler_pod_scheduling_sli_duration_seconds", "histogram"},
      {"scheduler_pod_scheduling_attempts", "histogram"},
      {"scheduler_preemption_attempts_total", "counter"},
      {"scheduler_preemption_victims", "histogram"},
      {"scheduler_unschedulable_pods", "gauge"},
      {"scheduler_goroutines", "gauge"},
      {"scheduler_permit_wait_duration_seconds", "histogram"},
      {"scheduler_plugin_evaluation_total", "counter"},
      {"scheduler_event_handling_duration_seconds", "histogram"},
      {"scheduler_cache_size", "gauge"},
      {"berth_informer_watch_restarts_total", "counter"},
      {"berth_informer_relists_total", "counter"},
      {"berth_informer_last_sync_timestamp_seconds", "gauge"},
      {"berth_api_request_duration_seconds", "histogram"},
      {"berth_api_requests_total", "counter"},
      {"berth_api_rate_limiter_wait_seconds_total", "counter"},
  };
  for (const auto& w : wants) {
    SCOPED_TRACE(w.name);
    EXPECT_TRUE(Contains(text, std::string("# TYPE ") + w.name + " " + w.type + "\n"));
    EXPECT_TRUE(Contains(text, std::string("# HELP ") + w.name + " "));
  }
  // component-base's stability prefix, at upstream v1.37.2's levels.
  EXPECT_TRUE(Contains(text,
                       "# HELP scheduler_schedule_attempts_total [STABLE] Number of attempts to "
                       "schedule pods, by the result."));
  EXPECT_TRUE(Contains(text,
                       "# HELP scheduler_scheduling_algorithm_duration_seconds [BETA] Scheduling "
                       "algorithm latency in seconds\n"));
  EXPECT_TRUE(Contains(text, "# HELP scheduler_cache_size [ALPHA] Number of nodes"));
  EXPECT_TRUE(Contains(text,
                       "# HELP scheduler_preemption_victims [STABLE] Number of selected preemption "
                       "victims for preemption initiated by a single pod\n"));
  EXPECT_TRUE(Contains(text, "# HELP berth_informer_relists_total Number of full re-lists"));
}

TEST(SchedulerMetricsTest, FixedLabelSetsArePreCreated) {
  SchedulerMetrics m;
  std::string text = m.Serialize();
  for (const char* q : {"active", "backoff", "unschedulable", "gated"}) {
    EXPECT_EQ(Value(text, std::string("scheduler_pending_pods{queue=\"") + q + "\"}"), 0) << q;
  }
  for (const char* t : {"nodes", "pods", "assumed_pods"}) {
    EXPECT_EQ(Value(text, std::string("scheduler_cache_size{type=\"") + t + "\"}"), 0) << t;
  }
  EXPECT_EQ(Value(text, "scheduler_preemption_attempts_total"), 0);
  EXPECT_EQ(Value(text, "berth_api_rate_limiter_wait_seconds_total"), 0);
  EXPECT_EQ(Value(text, "scheduler_scheduling_algorithm_duration_seconds_count"), 0);
  // Families whose label values are known only at run time appear once observed, as upstream's
  // client_golang vectors do.
  EXPECT_FALSE(Contains(text, "scheduler_schedule_attempts_total"));
}

// Bucket upper bounds as upstream's Exponential(start, factor, count) renders them.
TEST(SchedulerMetricsTest, BucketBoundaries) {
  SchedulerMetrics m;
  m.ScheduleAttempt(kScheduled, "default-scheduler", 0.003);
  m.ExtensionPoint(kFilter, Code::kSuccess, "default-scheduler", 0.0002);
  m.PluginExecution("NodeResourcesFit", kFilter, Code::kSuccess, 0.00002);
  m.PodScheduled(1, 0.5);
  m.PermitWait(Code::kSuccess, 0.01);
  m.EventHandling("PodAdd", 0.001);
  m.PreemptionVictims(3);
  m.ApiRequest("POST", "bindings", 201, 0.02);
  std::string text = m.Serialize();

  struct Case {
    std::string series_prefix;  // name_bucket{labels...,
    std::vector<double> bounds;
  };
  const Case cases[] = {
      {"scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\","
       "result=\"scheduled\",",
       ExponentialBuckets(0.001, 2, 15)},
      {"scheduler_scheduling_algorithm_duration_seconds_bucket{", ExponentialBuckets(0.001, 2, 15)},
      {"scheduler_framework_extension_point_duration_seconds_bucket{extension_point=\"Filter\","
       "profile=\"default-scheduler\",status=\"Success\",",
       ExponentialBuckets(0.0001, 2, 12)},
      {"scheduler_plugin_execution_duration_seconds_bucket{extension_point=\"Filter\","
       "plugin=\"NodeResourcesFit\",status=\"Success\",",
       ExponentialBuckets(0.00001, 1.5, 20)},
      {"scheduler_pod_scheduling_sli_duration_seconds_bucket{attempts=\"1\",",
       ExponentialBuckets(0.01, 2, 20)},
      {"scheduler_pod_scheduling_attempts_bucket{", ExponentialBuckets(1, 2, 5)},
      {"scheduler_preemption_victims_bucket{", ExponentialBuckets(1, 2, 7)},
      {"scheduler_permit_wait_duration_seconds_bucket{result=\"Success\",",
       ExponentialBuckets(0.001, 2, 15)},
      {"scheduler_event_handling_duration_seconds_bucket{event=\"PodAdd\",",
       ExponentialBuckets(0.0001, 2, 12)},
      {"berth_api_request_duration_seconds_bucket{code=\"201\",resource=\"bindings\",verb="
       "\"POST\",",
       {0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.series_prefix);
    // Collect the le values in order.
    std::vector<double> les;
    bool has_inf = false;
    size_t pos = 0;
    while ((pos = text.find(c.series_prefix + "le=\"", pos)) != std::string::npos) {
      size_t start = pos + c.series_prefix.size() + 4;
      std::string le = text.substr(start, text.find('"', start) - start);
      if (le == "+Inf") {
        has_inf = true;
      } else {
        les.push_back(std::stod(le));
      }
      pos = start;
    }
    ASSERT_EQ(les.size(), c.bounds.size());
    for (size_t i = 0; i < les.size(); ++i) {
      EXPECT_NEAR(les[i], c.bounds[i], c.bounds[i] * 1e-9) << i;
    }
    EXPECT_TRUE(has_inf);
  }
}

TEST(SchedulerMetricsTest, CountsAfterRecording) {
  SchedulerMetrics m;
  for (int i = 0; i < 3; ++i) m.ScheduleAttempt(kScheduled, "default-scheduler", 0.002);
  m.ScheduleAttempt(kUnschedulable, "default-scheduler", 0.004);
  m.ScheduleAttempt(kError, "gang", 0.001);
  m.SchedulingAlgorithm(0.001);
  m.PendingPods({.active = 4, .backoff = 3, .unschedulable = 2, .gated = 1});
  m.QueueIncomingPods(kActiveQueue, "PodAdd");
  m.QueueIncomingPods(kActiveQueue, "PodAdd", 2);
  m.QueueIncomingPods(kBackoffQueue, "ScheduleAttemptFailure");
  m.PluginEvaluation("NodeResourcesFit", kFilter, "default-scheduler");
  m.PluginEvaluation("NodeResourcesFit", kFilter, "default-scheduler");
  m.PodScheduled(2, 1.5);
  m.PodScheduled(20, 100);
  m.PreemptionAttempt();
  m.UnschedulablePods("NodeResourcesFit", "default-scheduler", 1);
  m.UnschedulablePods("NodeResourcesFit", "default-scheduler", 1);
  m.UnschedulablePods("NodeResourcesFit", "default-scheduler", -1);
  m.Goroutines(kBinding, 1);
  m.PermitWait(Code::kUnschedulable, 0.5);
  m.CacheSize({.nodes = 10, .pods = 30, .assumed_pods = 2});
  m.InformerWatchRestart("Pod");
  m.InformerWatchRestart("Pod");
  m.InformerRelist("Node");
  m.InformerSynced("Pod", std::chrono::system_clock::time_point(std::chrono::seconds(1700000000)));
  m.ApiRequest("POST", "bindings", 201, 0.01);
  m.ApiRequest("POST", "bindings", 201, 0.03);
  m.ApiRequest("GET", "pods", 0, 0.5);
  m.RateLimiterWait(0.25);
  m.RateLimiterWait(0.5);
  m.RateLimiterWait(-1);  // ignored
  std::string t = m.Serialize();

  EXPECT_EQ(Value(t,
                  "scheduler_schedule_attempts_total{profile=\"default-scheduler\","
                  "result=\"scheduled\"}"),
            3);
  EXPECT_EQ(Value(t,
                  "scheduler_schedule_attempts_total{profile=\"default-scheduler\","
                  "result=\"unschedulable\"}"),
            1);
  EXPECT_EQ(Value(t, "scheduler_schedule_attempts_total{profile=\"gang\",result=\"error\"}"), 1);
  EXPECT_EQ(Value(t,
                  "scheduler_scheduling_attempt_duration_seconds_count{profile=\"default-"
                  "scheduler\",result=\"scheduled\"}"),
            3);
  EXPECT_NEAR(Value(t,
                    "scheduler_scheduling_attempt_duration_seconds_sum{profile=\"default-"
                    "scheduler\",result=\"scheduled\"}"),
              0.006, 1e-9);
  // 0.002 falls in le=0.002 (upper bound inclusive), not in le=0.001.
  EXPECT_EQ(Value(t,
                  "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-"
                  "scheduler\",result=\"scheduled\",le=\"0.001\"}"),
            0);
  EXPECT_EQ(Value(t,
                  "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-"
                  "scheduler\",result=\"scheduled\",le=\"0.002\"}"),
            3);
  EXPECT_EQ(Value(t, "scheduler_scheduling_algorithm_duration_seconds_count"), 1);
  EXPECT_EQ(Value(t, "scheduler_pending_pods{queue=\"active\"}"), 4);
  EXPECT_EQ(Value(t, "scheduler_pending_pods{queue=\"backoff\"}"), 3);
  EXPECT_EQ(Value(t, "scheduler_pending_pods{queue=\"unschedulable\"}"), 2);
  EXPECT_EQ(Value(t, "scheduler_pending_pods{queue=\"gated\"}"), 1);
  EXPECT_EQ(Value(t, "scheduler_queue_incoming_pods_total{event=\"PodAdd\",queue=\"active\"}"), 3);
  EXPECT_EQ(Value(t,
                  "scheduler_queue_incoming_pods_total{event=\"ScheduleAttemptFailure\","
                  "queue=\"backoff\"}"),
            1);
  EXPECT_EQ(Value(t,
                  "scheduler_plugin_evaluation_total{extension_point=\"Filter\","
                  "plugin=\"NodeResourcesFit\",profile=\"default-scheduler\"}"),
            2);
  EXPECT_EQ(Value(t, "scheduler_pod_scheduling_sli_duration_seconds_count{attempts=\"2\"}"), 1);
  EXPECT_EQ(Value(t, "scheduler_pod_scheduling_sli_duration_seconds_count{attempts=\"15+\"}"), 1);
  EXPECT_EQ(Value(t, "scheduler_pod_scheduling_attempts_count"), 2);
  EXPECT_EQ(Value(t, "scheduler_pod_scheduling_attempts_sum"), 22);
  EXPECT_EQ(Value(t, "scheduler_preemption_attempts_total"), 1);
  EXPECT_EQ(Value(t,
                  "scheduler_unschedulable_pods{plugin=\"NodeResourcesFit\","
                  "profile=\"default-scheduler\"}"),
            1);
  EXPECT_EQ(Value(t, "scheduler_goroutines{operation=\"binding\"}"), 1);
  EXPECT_EQ(Value(t, "scheduler_permit_wait_duration_seconds_count{result=\"Unschedulable\"}"), 1);
  EXPECT_EQ(Value(t, "scheduler_cache_size{type=\"nodes\"}"), 10);
  EXPECT_EQ(Value(t, "scheduler_cache_size{type=\"pods\"}"), 30);
  EXPECT_EQ(Value(t, "scheduler_cache_size{type=\"assumed_pods\"}"), 2);
  EXPECT_EQ(Value(t, "berth_informer_watch_restarts_total{resource=\"Pod\"}"), 2);
  EXPECT_EQ(Value(t, "berth_informer_relists_total{resource=\"Node\"}"), 1);
  EXPECT_EQ(Value(t, "berth_informer_last_sync_timestamp_seconds{resource=\"Pod\"}"), 1700000000);
  EXPECT_EQ(Value(t, "berth_api_requests_total{code=\"201\",resource=\"bindings\",verb=\"POST\"}"),
            2);
  EXPECT_EQ(Value(t, "berth_api_requests_total{code=\"<error>\",resource=\"pods\",verb=\"GET\"}"),
            1);
  EXPECT_EQ(Value(t,
                  "berth_api_request_duration_seconds_count{code=\"201\",resource=\"bindings\","
                  "verb=\"POST\"}"),
            2);
  EXPECT_DOUBLE_EQ(Value(t, "berth_api_rate_limiter_wait_seconds_total"), 0.75);
}

TEST(SchedulerMetricsTest, ExtensionPointStatusUsesUpstreamCodeNames) {
  SchedulerMetrics m;
  m.ExtensionPoint(kPreFilter, Code::kUnschedulableAndUnresolvable, "p", 0.001);
  m.ExtensionPoint(kPermit, Code::kWait, "p", 0.001);
  std::string t = m.Serialize();
  EXPECT_EQ(Value(t,
                  "scheduler_framework_extension_point_duration_seconds_count{extension_point="
                  "\"PreFilter\",profile=\"p\",status=\"UnschedulableAndUnresolvable\"}"),
            1);
  EXPECT_EQ(Value(t,
                  "scheduler_framework_extension_point_duration_seconds_count{extension_point="
                  "\"Permit\",profile=\"p\",status=\"Wait\"}"),
            1);
}

// Label values are copied: a string_view into a temporary is safe.
TEST(SchedulerMetricsTest, LabelValuesAreCopied) {
  SchedulerMetrics m;
  {
    std::string profile = "temp-profile";
    m.ScheduleAttempt(kScheduled, profile, 0.001);
    profile.assign("xxxxxxxxxxxx");
  }
  m.ScheduleAttempt(kScheduled, "temp-profile", 0.001);
  EXPECT_EQ(Value(m.Serialize(),
                  "scheduler_schedule_attempts_total{profile=\"temp-profile\","
                  "result=\"scheduled\"}"),
            2);
}

TEST(SchedulerMetricsTest, ConcurrentRecordingIsExact) {
  SchedulerMetrics m;
  constexpr int kThreads = 4, kPerThread = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&m, t] {
      std::string plugin = "Plugin" + std::to_string(t % 2);
      for (int i = 0; i < kPerThread; ++i) {
        m.PluginExecution(plugin, kFilter, Code::kSuccess, 0.0001);
        m.ScheduleAttempt(kScheduled, "default-scheduler", 0.001);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::string t = m.Serialize();
  EXPECT_EQ(Value(t,
                  "scheduler_schedule_attempts_total{profile=\"default-scheduler\","
                  "result=\"scheduled\"}"),
            kThreads * kPerThread);
  for (const char* p : {"Plugin0", "Plugin1"}) {
    EXPECT_EQ(Value(t, std::string("scheduler_plugin_execution_duration_seconds_count{"
                                   "extension_point=\"Filter\",plugin=\"") +
                           p + "\",status=\"Success\"}"),
              kThreads / 2 * kPerThread);
  }
}

TEST(SchedulerMetricsTest, SamplePluginMetricsIsAboutTenPercent) {
  SchedulerMetrics m;
  int sampled = 0;
  for (int i = 0; i < 10000; ++i) sampled += m.SamplePluginMetrics() ? 1 : 0;
  EXPECT_GT(sampled, 700);
  EXPECT_LT(sampled, 1300);
}

TEST(SchedulerMetricsTest, SharesACallerRegistry) {
  auto registry = std::make_shared<prometheus::Registry>();
  SchedulerMetrics m(registry);
  EXPECT_EQ(m.registry(), registry);
  m.PreemptionAttempt();
  EXPECT_EQ(Value(m.Serialize(), "scheduler_preemption_attempts_total"), 1);
}

// The fault counts of base/fault_counters.h appear on /metrics; each scrape exports the total,
// not the total again on top of the last scrape.
TEST(SchedulerMetricsTest, ExportsFaultCounts) {
  SchedulerMetrics m;
  const std::string reflector = "berth_recovered_exceptions_total{thread=\"metrics_test\"}";
  const std::string refused = "berth_http_connections_refused_total{listener=\"metrics_test\"}";
  const std::string accept = "berth_http_accept_errors_total{listener=\"metrics_test\"}";
  CountFault(Fault::kRecoveredException, "metrics_test");
  CountFault(Fault::kConnectionRefused, "metrics_test");
  CountFault(Fault::kConnectionRefused, "metrics_test");
  std::string t = m.Serialize();
  EXPECT_EQ(Value(t, reflector), 1);
  EXPECT_EQ(Value(t, refused), 2);
  EXPECT_EQ(Value(t, accept), -1);  // no accept error yet
  CountFault(Fault::kAcceptError, "metrics_test");
  CountFault(Fault::kConnectionRefused, "metrics_test");
  t = m.Serialize();
  EXPECT_EQ(Value(t, reflector), 1);
  EXPECT_EQ(Value(t, refused), 3);
  EXPECT_EQ(Value(t, accept), 1);
}

// Process metrics (the Go client's process collector) and the build-info metric are exported
// from the first scrape; leader_election_master_status once the elector reports.
TEST(SchedulerMetricsTest, ProcessBuildAndLeaderMetrics) {
  SchedulerMetrics m;
  std::string t = m.Serialize();
  EXPECT_GT(Value(t, "process_resident_memory_bytes"), 1e6);
  EXPECT_GT(Value(t, "process_open_fds"), 2);
  EXPECT_GT(Value(t, "process_max_fds"), 2);
  EXPECT_GE(Value(t, "process_cpu_seconds_total"), 0);
  const double start = Value(t, "process_start_time_seconds");
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_GT(start, now - 3600);
  EXPECT_LE(start, now + 1);
  EXPECT_NE(t.find("# TYPE process_cpu_seconds_total counter"), std::string::npos);
  EXPECT_NE(t.find("berth_build_info{compiler=\""), std::string::npos);
  EXPECT_NE(t.find("kube_scheduler_version=\"v1.37.2\",version=\"0.1.0\"} 1"), std::string::npos);
  EXPECT_EQ(t.find("leader_election_master_status{"), std::string::npos);
  m.LeaderElectionStatus("berth-scheduler", false);
  EXPECT_EQ(Value(m.Serialize(), "leader_election_master_status{name=\"berth-scheduler\"}"), 0);
  m.LeaderElectionStatus("berth-scheduler", true);
  t = m.Serialize();
  EXPECT_EQ(Value(t, "leader_election_master_status{name=\"berth-scheduler\"}"), 1);
  EXPECT_NE(t.find("# HELP leader_election_master_status [ALPHA] Gauge of if the reporting "
                   "system is master of the relevant lease"),
            std::string::npos);
}

}  // namespace
}  // namespace berth::metrics

namespace berth::metrics {
namespace {

TEST(PendingPodReasonsTest, SeriesFollowTheCountsAndStaleOnesGo) {
  SchedulerMetrics m;
  m.PendingPodReasons(
      {{{"berth-scheduler", "NodeResourcesFit", "Insufficient cpu"}, 3},
       {{"berth-scheduler", "TaintToleration", "node(s) had untolerated taint(s)"}, 1}});
  std::string text = m.Serialize();
  EXPECT_NE(text.find("# TYPE berth_pending_pod_reasons gauge"), std::string::npos);
  EXPECT_NE(text.find("berth_pending_pod_reasons{plugin=\"NodeResourcesFit\",profile=\"berth-"
                      "scheduler\",reason=\"Insufficient cpu\"} 3"),
            std::string::npos)
      << text;
  m.PendingPodReasons({{{"berth-scheduler", "NodeResourcesFit", "Insufficient cpu"}, 1}});
  text = m.Serialize();
  EXPECT_NE(text.find("reason=\"Insufficient cpu\"} 1"), std::string::npos);
  EXPECT_EQ(text.find("untolerated"), std::string::npos) << "a reason nobody waits for is gone";
}

}  // namespace
}  // namespace berth::metrics
