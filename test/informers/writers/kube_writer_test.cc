// KubeApiWriter::Bind and KubeOutcomeSink against a scripted KubeClient: the exact requests
// (path, method, content type, body) and how the API server's answers map to a Status.

#include "informers/writers/kube_writer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "api/json/parse.h"
#include "test/testing/builders.h"
#include "test/testing/fake_kube_client.h"

namespace berth::writers {
namespace {

using framework::Code;
using testing::FakeKubeClient;
using testing::MakePod;

constexpr char kBindingPath[] = "/api/v1/namespaces/shop/pods/web/binding";
constexpr char kPodPath[] = "/api/v1/namespaces/shop/pods/web";
constexpr char kStatusPath[] = "/api/v1/namespaces/shop/pods/web/status";
constexpr char kEventsPath[] = "/apis/events.k8s.io/v1/namespaces/shop/events";

api::Pod Web() { return MakePod("web").Namespace("shop").Obj(); }

KubeApiWriter NewWriter(FakeKubeClient& kc) { return KubeApiWriter(kc); }

// The pod as the API server returns it on GET.
std::string PodJson(const std::string& uid, const std::string& node) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop","uid":")" +
         uid + R"("},"spec":{"nodeName":")" + node +
         R"(","containers":[{"name":"c","image":"nginx"}]}})";
}

std::string StatusJson(int code, const std::string& reason, const std::string& message) {
  return R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":")" + message +
         R"(","reason":")" + reason + R"(","code":)" + std::to_string(code) + "}";
}

api::Value Body(const FakeKubeClient::Recorded& r) {
  auto v = api::json::ParseJson(r.request.body);
  EXPECT_TRUE(v.ok()) << r.request.body;
  return v.ok() ? *v : api::Value();
}

std::string Str(const api::Value& v, std::initializer_list<const char*> path) {
  const api::Value* cur = &v;
  for (const char* k : path) {
    cur = cur->Find(k);
    if (cur == nullptr) return "<missing " + std::string(k) + ">";
  }
  return cur->IsString() ? cur->AsString() : api::json::ToJson(*cur);
}

std::vector<FakeKubeClient::Recorded> Requests(const FakeKubeClient& kc, const std::string& method,
                                               const std::string& path) {
  std::vector<FakeKubeClient::Recorded> out;
  for (auto& r : kc.Requests()) {
    if (r.request.method == method && r.request.path == path) out.push_back(r);
  }
  return out;
}

// ---- KubeApiWriter::Bind ----

TEST(KubeApiWriterTest, BindPostsABindingWithTheUidPrecondition) {
  FakeKubeClient kc;
  kc.PushResponse("POST", kBindingPath, 201, R"({"kind":"Status","status":"Success","code":201})");
  KubeApiWriter w = NewWriter(kc);
  auto s = w.Bind(Web(), "n1");
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  auto reqs = kc.Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].request.method, "POST");
  EXPECT_EQ(reqs[0].request.path, kBindingPath);
  EXPECT_EQ(api::json::ToJson(Body(reqs[0])),
            R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web","namespace":"shop",)"
            R"("uid":"uid-web"},"target":{"kind":"Node","name":"n1"}})");
}

struct BindCase {
  std::string name;
  // Scripted answers: the POST, then (for 409) the GET of the pod; status 0 = transport error.
  int post_status;
  std::string post_body;
  std::optional<std::pair<int, std::string>> get;
  Code want_code;
  std::string want_message;
};
void PrintTo(const BindCase& c, std::ostream* os) { *os << c.name; }

class BindTest : public ::testing::TestWithParam<BindCase> {};

TEST_P(BindTest, MapsTheAnswerToAStatus) {
  const BindCase& tc = GetParam();
  FakeKubeClient kc;
  if (tc.post_status == 0) {
    kc.PushError("POST", kBindingPath, tc.post_body);
  } else {
    kc.PushResponse("POST", kBindingPath, tc.post_status, tc.post_body);
  }
  if (tc.get) kc.PushResponse("GET", kPodPath, tc.get->first, tc.get->second);
  KubeApiWriter w = NewWriter(kc);
  auto s = w.Bind(Web(), "n1");
  EXPECT_EQ(s.code(), tc.want_code) << s.Message();
  EXPECT_EQ(s.Message(), tc.want_message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BindTest,
    ::testing::Values(
        BindCase{"Created", 201, "{}", std::nullopt, Code::kSuccess, ""},
        // A replayed request whose first attempt had landed: already bound here, by us.
        BindCase{"ConflictAlreadyBoundHere", 409,
                 StatusJson(409, "Conflict", "pod web is already assigned to node \\\"n1\\\""),
                 std::make_pair(200, PodJson("uid-web", "n1")), Code::kSuccess, ""},
        BindCase{"ServerError", 500,
                 StatusJson(500, "InternalError", "etcdserver: request timed out"), std::nullopt,
                 Code::kError, "binding failed (HTTP 500): etcdserver: request timed out"},
        BindCase{"Forbidden", 403,
                 StatusJson(403, "Forbidden",
                            "pods \\\"web\\\" is forbidden: User \\\"berth\\\" cannot create "
                            "resource \\\"pods/binding\\\""),
                 std::nullopt, Code::kError,
                 "binding failed (HTTP 403): pods \"web\" is forbidden: User \"berth\" cannot "
                 "create resource \"pods/binding\""},
        BindCase{"NotJson", 502, "bad gateway", std::nullopt, Code::kError,
                 "binding failed (HTTP 502): bad gateway"},
        BindCase{"TransportError", 0, "connection refused (after 5 attempts)", std::nullopt,
                 Code::kError, "connection refused (after 5 attempts)"}),
    [](const ::testing::TestParamInfo<BindCase>& info) { return info.param.name; });

// The pod no longer needs us: deleted (404), or bound elsewhere / replaced (409, then read
// back). The writer says so with Status::PodGone (still an Error), which the scheduler's failure
// path forgets quietly; it writes nowhere else.
TEST(KubeApiWriterGoneTest, NotFoundIsPodGone) {
  FakeKubeClient kc;
  kc.PushResponse("POST", kBindingPath, 404,
                  StatusJson(404, "NotFound", "pods \\\"web\\\" not found"));
  KubeApiWriter w = NewWriter(kc);
  auto s = w.Bind(Web(), "n1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_TRUE(s.IsPodGone());
  EXPECT_EQ(s.Message(), "pods \"web\" not found");
}

TEST(KubeApiWriterGoneTest, ConflictIsAnsweredByReadingThePodBack) {
  struct Case {
    std::string name;
    int get_status;
    std::string get_body;
    bool success;
    bool gone;
  };
  const Case cases[] = {
      {"already bound here (a replayed request)", 200, PodJson("uid-web", "n1"), true, false},
      {"bound elsewhere", 200, PodJson("uid-web", "n2"), false, true},
      {"replaced by a pod of the same name", 200, PodJson("uid-other", ""), false, true},
      {"deleted meanwhile", 404, "{}", false, true},
      {"still unbound: an ordinary error", 200, PodJson("uid-web", ""), false, false},
      {"cannot read it back: an ordinary error", 500, "{}", false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeKubeClient kc;
    kc.PushResponse("POST", kBindingPath, 409, StatusJson(409, "Conflict", "conflict"));
    kc.PushResponse("GET", kPodPath, c.get_status, c.get_body);
    KubeApiWriter w = NewWriter(kc);
    auto s = w.Bind(Web(), "n1");
    EXPECT_EQ(s.IsSuccess(), c.success) << s.Message();
    EXPECT_EQ(s.IsPodGone(), c.gone) << s.Message();
    if (!c.success) EXPECT_EQ(s.Message(), "conflict");
  }
}

// ---- KubeOutcomeSink ----

class KubeOutcomeSinkTest : public ::testing::Test {
 protected:
  KubeOutcomeSinkTest() {
    kc_.PushResponse("POST", kEventsPath, 201, "{}", /*sticky=*/true);
    kc_.PushResponse("PATCH", kStatusPath, 200, "{}", /*sticky=*/true);
  }
  // One writer thread: the order of writes is the order of calls.
  std::unique_ptr<KubeOutcomeSink> NewSink() {
    return std::make_unique<KubeOutcomeSink>(kc_, clock_, "berth-scheduler-host1", 1);
  }
  void Flush(KubeOutcomeSink& sink) { ASSERT_TRUE(sink.Flush(std::chrono::seconds(5))); }

  FakeKubeClient kc_;
  framework::FakeClock clock_;
  framework::PodInfoPtr pod_ = MakePod("web").Namespace("shop").Info();
};

TEST_F(KubeOutcomeSinkTest, ScheduledWritesANormalEvent) {
  auto sink = NewSink();
  sink->Scheduled(*pod_, "n1", "berth-scheduler");
  Flush(*sink);
  auto posts = Requests(kc_, "POST", kEventsPath);
  ASSERT_EQ(posts.size(), 1u);
  api::Value ev = Body(posts[0]);
  EXPECT_EQ(Str(ev, {"apiVersion"}), "events.k8s.io/v1");
  EXPECT_EQ(Str(ev, {"kind"}), "Event");
  EXPECT_EQ(Str(ev, {"type"}), "Normal");
  EXPECT_EQ(Str(ev, {"reason"}), "Scheduled");
  EXPECT_EQ(Str(ev, {"action"}), "Binding");
  EXPECT_EQ(Str(ev, {"note"}), "Successfully assigned shop/web to n1");
  EXPECT_EQ(Str(ev, {"reportingController"}), "berth-scheduler");
  EXPECT_EQ(Str(ev, {"reportingInstance"}), "berth-scheduler-host1");
  EXPECT_EQ(Str(ev, {"metadata", "namespace"}), "shop");
  EXPECT_EQ(Str(ev, {"metadata", "name"}).rfind("web.", 0), 0u);
  EXPECT_EQ(Str(ev, {"regarding", "kind"}), "Pod");
  EXPECT_EQ(Str(ev, {"regarding", "apiVersion"}), "v1");
  EXPECT_EQ(Str(ev, {"regarding", "namespace"}), "shop");
  EXPECT_EQ(Str(ev, {"regarding", "name"}), "web");
  EXPECT_EQ(Str(ev, {"regarding", "uid"}), "uid-web");
  EXPECT_FALSE(Str(ev, {"eventTime"}).empty());
  EXPECT_TRUE(Requests(kc_, "PATCH", kStatusPath).empty()) << "no condition on success";
}

struct FailedCase {
  std::string reason;
  bool want_condition;
};
void PrintTo(const FailedCase& c, std::ostream* os) { *os << c.reason; }

class KubeOutcomeSinkFailedTest : public KubeOutcomeSinkTest,
                                  public ::testing::WithParamInterface<FailedCase> {};

TEST_P(KubeOutcomeSinkFailedTest, WritesAWarningEventAndThePodScheduledCondition) {
  const FailedCase& tc = GetParam();
  const std::string msg = "0/3 nodes are available: 3 Insufficient cpu.";
  auto sink = NewSink();
  sink->Failed(*pod_, tc.reason, msg, "berth-scheduler");
  Flush(*sink);

  auto posts = Requests(kc_, "POST", kEventsPath);
  ASSERT_EQ(posts.size(), 1u);
  api::Value ev = Body(posts[0]);
  EXPECT_EQ(Str(ev, {"type"}), "Warning");
  EXPECT_EQ(Str(ev, {"reason"}), "FailedScheduling");
  EXPECT_EQ(Str(ev, {"action"}), "Scheduling");
  EXPECT_EQ(Str(ev, {"note"}), msg);
  EXPECT_EQ(Str(ev, {"regarding", "uid"}), "uid-web");

  auto patches = Requests(kc_, "PATCH", kStatusPath);
  if (!tc.want_condition) {
    EXPECT_TRUE(patches.empty());
    return;
  }
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].request.content_type, "application/strategic-merge-patch+json");
  api::Value patch = Body(patches[0]);
  const api::Value* conds =
      patch.Find("status") ? patch.Find("status")->Find("conditions") : nullptr;
  ASSERT_NE(conds, nullptr);
  ASSERT_EQ(conds->AsArray().size(), 1u);
  const api::Value& c = conds->AsArray()[0];
  EXPECT_EQ(Str(c, {"type"}), "PodScheduled");
  EXPECT_EQ(Str(c, {"status"}), "False");
  EXPECT_EQ(Str(c, {"reason"}), tc.reason);
  EXPECT_EQ(Str(c, {"message"}), msg);
  EXPECT_FALSE(Str(c, {"lastTransitionTime"}).empty());
}

// "FailedScheduling" is the reason of the event upstream records for a deleting pod
// (skipPodSchedule): an event, no condition.
INSTANTIATE_TEST_SUITE_P(Reasons, KubeOutcomeSinkFailedTest,
                         ::testing::Values(FailedCase{"Unschedulable", true},
                                           FailedCase{"SchedulerError", true},
                                           FailedCase{"FailedScheduling", false}),
                         [](const ::testing::TestParamInfo<FailedCase>& info) {
                           return info.param.reason;
                         });

TEST_F(KubeOutcomeSinkTest, RepeatedFailuresFoldIntoOneEvent) {
  const std::string msg = "0/3 nodes are available: 3 Insufficient cpu.";
  auto sink = NewSink();
  for (int i = 0; i < 3; ++i) {
    sink->Failed(*pod_, "Unschedulable", msg, "berth-scheduler");
    Flush(*sink);
  }
  EXPECT_EQ(Requests(kc_, "POST", kEventsPath).size(), 1u) << "repeats join the first event";

  // A different note is a different event.
  sink->Failed(*pod_, "Unschedulable", "0/3 nodes are available: 3 Insufficient memory.",
               "berth-scheduler");
  Flush(*sink);
  EXPECT_EQ(Requests(kc_, "POST", kEventsPath).size(), 2u);

  // Long after, the series is finished: a new event.
  clock_.Advance(std::chrono::minutes(13));
  sink->Failed(*pod_, "Unschedulable", msg, "berth-scheduler");
  Flush(*sink);
  EXPECT_EQ(Requests(kc_, "POST", kEventsPath).size(), 3u);
}

// Upstream's handleSchedulingFailure: truncateMessage applies to the event's note (1024 bytes,
// ending " ..."); the PodScheduled condition carries the whole message.
TEST_F(KubeOutcomeSinkTest, OnlyTheEventNoteIsTruncated) {
  const std::string msg = "0/2 nodes are available: 1 " + std::string(3000, 'x') + ".";
  auto sink = NewSink();
  sink->Failed(*pod_, "Unschedulable", msg, "berth-scheduler");
  Flush(*sink);
  auto posts = Requests(kc_, "POST", kEventsPath);
  ASSERT_EQ(posts.size(), 1u);
  const std::string note = Str(Body(posts[0]), {"note"});
  EXPECT_EQ(note.size(), 1024u);
  EXPECT_EQ(note, msg.substr(0, 1020) + " ...");
  auto patches = Requests(kc_, "PATCH", kStatusPath);
  ASSERT_EQ(patches.size(), 1u);
  const api::Value patch = Body(patches[0]);
  const api::Value& c = patch.Find("status")->Find("conditions")->AsArray()[0];
  EXPECT_EQ(Str(c, {"message"}), msg);
}

TEST_F(KubeOutcomeSinkTest, ConditionIsPatchedOnlyWhenItChanges) {
  auto sink = NewSink();
  sink->Failed(*pod_, "Unschedulable", "0/1 nodes are available: 1 a.", "berth-scheduler");
  Flush(*sink);
  sink->Failed(*pod_, "Unschedulable", "0/1 nodes are available: 1 a.", "berth-scheduler");
  Flush(*sink);
  EXPECT_EQ(Requests(kc_, "PATCH", kStatusPath).size(), 1u);
  sink->Failed(*pod_, "Unschedulable", "0/1 nodes are available: 1 b.", "berth-scheduler");
  Flush(*sink);
  EXPECT_EQ(Requests(kc_, "PATCH", kStatusPath).size(), 2u);
  sink->Failed(*pod_, "SchedulerError", "0/1 nodes are available: 1 b.", "berth-scheduler");
  Flush(*sink);
  EXPECT_EQ(Requests(kc_, "PATCH", kStatusPath).size(), 3u);
}

TEST_F(KubeOutcomeSinkTest, FailedEventWriteDoesNotBlockTheConditionPatch) {
  FakeKubeClient kc;  // nothing scripted for events: every POST fails
  kc.PushResponse("PATCH", kStatusPath, 200, "{}", true);
  KubeOutcomeSink sink(kc, clock_, "berth-scheduler-host1", 1);
  sink.Failed(*pod_, "Unschedulable", "m", "berth-scheduler");
  ASSERT_TRUE(sink.Flush(std::chrono::seconds(5)));
  EXPECT_EQ(Requests(kc, "PATCH", kStatusPath).size(), 1u);
  EXPECT_EQ(sink.Pending(), 0u);
}

// An API server restart longer than the client's own retries must not lose the Scheduled event:
// as upstream's event broadcaster, the event is tried again later (here after 20 ms, not 10 s).
TEST_F(KubeOutcomeSinkTest, EventThatCannotBeSentIsTriedAgainLater) {
  FakeKubeClient kc;
  kc.PushError("POST", kEventsPath, "connection refused (after 6 attempts)");
  kc.PushError("POST", kEventsPath, "connection refused (after 6 attempts)");
  kc.PushResponse("POST", kEventsPath, 201, "{}", /*sticky=*/true);
  KubeOutcomeSink sink(kc, clock_, "berth-scheduler-host1", 1, std::chrono::milliseconds(20));
  sink.Scheduled(*pod_, "n1", "berth-scheduler");
  ASSERT_TRUE(testing::WaitFor([&] { return Requests(kc, "POST", kEventsPath).size() == 3; }));
  auto posts = Requests(kc, "POST", kEventsPath);
  EXPECT_EQ(Str(Body(posts[2]), {"reason"}), "Scheduled");
  EXPECT_EQ(Str(Body(posts[2]), {"note"}), "Successfully assigned shop/web to n1");
  // And no more after it went through.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(Requests(kc, "POST", kEventsPath).size(), 3u);
}

TEST_F(KubeOutcomeSinkTest, AnEventIsTriedTwelveTimesAtMost) {
  FakeKubeClient kc;  // nothing scripted for events: every POST fails to reach the server
  KubeOutcomeSink sink(kc, clock_, "berth-scheduler-host1", 1, std::chrono::milliseconds(1));
  sink.Scheduled(*pod_, "n1", "berth-scheduler");
  ASSERT_TRUE(testing::WaitFor([&] { return Requests(kc, "POST", kEventsPath).size() == 12; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(Requests(kc, "POST", kEventsPath).size(), 12u);
}

}  // namespace
}  // namespace berth::writers
