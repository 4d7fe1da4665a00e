#include "informers/reflector.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "api/decode.h"
#include "test/testing/fake_kube_client.h"

namespace berth::informers {
namespace {

using std::chrono::milliseconds;
using testing::FakeKubeClient;
using testing::WaitFor;
using Script = FakeKubeClient::WatchScript;

constexpr char kPods[] = "/api/v1/pods";

std::string PodJson(const std::string& name, const std::string& rv, const std::string& cpu = "1") {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"default","resourceVersion":")" + rv +
         R"("},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
         R"("}}}]}})";
}

std::string ListJson(const std::string& rv, const std::vector<std::string>& items,
                     const std::string& cont = "") {
  std::string out = R"({"kind":"PodList","metadata":{"resourceVersion":")" + rv + "\"";
  if (!cont.empty()) out += R"(,"continue":")" + cont + "\"";
  out += R"(},"items":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]}";
}

std::string Event(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}";
}

std::string Bookmark(const std::string& rv) {
  return Event("BOOKMARK", R"({"kind":"Pod","metadata":{"resourceVersion":")" + rv + R"("}})");
}

std::string Gone() {
  return Event(
      "ERROR",
      R"x({"kind":"Status","status":"Failure","message":"too old resource version: 1 (5)",)x"
      R"x("reason":"Expired","code":410})x");
}

// Records deliveries as "ADD default/p1@5", "UPDATE default/p1 5->6", "DELETE default/p1@6".
class Recorder : public ReflectorHandler {
 public:
  void OnAdd(const ObjectPtr& obj) override { Push("ADD " + Describe(obj)); }
  void OnUpdate(const ObjectPtr& old_obj, const ObjectPtr& new_obj) override {
    Push("UPDATE " + Key(new_obj) + " " + Pod(old_obj).metadata.resource_version + "->" +
         Pod(new_obj).metadata.resource_version);
  }
  void OnDelete(const ObjectPtr& obj) override { Push("DELETE " + Describe(obj)); }

  std::vector<std::string> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  size_t size() const { return events().size(); }

 private:
  static const api::Pod& Pod(const ObjectPtr& p) { return *static_cast<const api::Pod*>(p.get()); }
  static std::string Key(const ObjectPtr& p) { return Pod(p).Key(); }
  static std::string Describe(const ObjectPtr& p) {
    return Key(p) + "@" + Pod(p).metadata.resource_version;
  }
  void Push(std::string s) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(s));
  }
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

// A ReflectorClock that does not sleep: each Wait is recorded and moves the time on.
class FakeReflectorClock : public ReflectorClock {
 public:
  std::chrono::steady_clock::time_point Now() override {
    std::lock_guard lock(mu_);
    return now_;
  }
  bool Wait(milliseconds d, const std::atomic<bool>& stop) override {
    std::lock_guard lock(mu_);
    waits_.push_back(d);
    now_ += d;
    return !stop.load();
  }
  void Advance(milliseconds d) {
    std::lock_guard lock(mu_);
    now_ += d;
  }
  std::vector<milliseconds> waits() const {
    std::lock_guard lock(mu_);
    return waits_;
  }

 private:
  mutable std::mutex mu_;
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1000)};
  std::vector<milliseconds> waits_;
};

// client-go's reflector backoff: the n-th wait (from 0) is in [b, 2b), b = min(800ms * 2^n, 30s).
void ExpectClientGoBackoff(const std::vector<milliseconds>& waits, size_t n) {
  ASSERT_GE(waits.size(), n);
  int64_t base = 800;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_GE(waits[i].count(), base) << "wait " << i;
    EXPECT_LT(waits[i].count(), 2 * base) << "wait " << i;
    base = std::min<int64_t>(base * 2, 30000);
  }
}

DecodeFn PodDecoder() {
  return [](const api::Value& v) -> Result<ObjectPtr> {
    auto r = api::DecodePod(v);
    if (!r.ok()) return Error{r.error()};
    return ObjectPtr(std::make_shared<const api::Pod>(std::move(*r)));
  };
}

class ReflectorTest : public ::testing::Test {
 protected:
  ReflectorOptions Options() {
    ReflectorOptions o;
    o.kind = "Pod";
    o.list_path = kPods;
    o.initial_backoff = milliseconds(20);
    o.max_backoff = milliseconds(160);
    o.healthy_stream = milliseconds(100);
    o.absent_poll_interval = milliseconds(30);
    o.log = [this](std::string_view line) {
      std::lock_guard lock(log_mu_);
      logs_.emplace_back(line);
    };
    return o;
  }
  std::unique_ptr<Reflector> Make(ReflectorOptions o) {
    return std::make_unique<Reflector>(client_, std::move(o), PodDecoder(), recorder_);
  }
  std::unique_ptr<Reflector> Make() { return Make(Options()); }
  std::vector<std::string> Logs() {
    std::lock_guard lock(log_mu_);
    return logs_;
  }
  int CountLogs(const std::string& needle) {
    int n = 0;
    for (const auto& l : Logs()) n += l.find(needle) != std::string::npos;
    return n;
  }

  FakeKubeClient client_;
  Recorder recorder_;
  std::mutex log_mu_;
  std::vector<std::string> logs_;
};

TEST_F(ReflectorTest, ListsAllPagesThenWatchesFromListResourceVersion) {
  client_.PushResponse("GET", kPods, 200,
                       ListJson("", {PodJson("a", "3"), PodJson("b", "4")}, "tok+/="));
  client_.PushResponse("GET", kPods, 200, ListJson("10", {PodJson("c", "9")}));
  auto r = Make();
  EXPECT_FALSE(r->HasSynced());
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return client_.WatchPaths(kPods).size() == 1; }));
  EXPECT_TRUE(r->HasSynced());
  EXPECT_EQ(recorder_.events(),
            (std::vector<std::string>{"ADD default/a@3", "ADD default/b@4", "ADD default/c@9"}));
  auto lists = client_.ListPaths(kPods);
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[0], "/api/v1/pods?limit=200");
  EXPECT_EQ(lists[1], "/api/v1/pods?limit=200&continue=tok%2B%2F%3D");
  std::string watch = client_.WatchPaths(kPods)[0];
  EXPECT_NE(watch.find("allowWatchBookmarks=true"), std::string::npos) << watch;
  EXPECT_NE(watch.find("watch=true"), std::string::npos) << watch;
  EXPECT_NE(watch.find("resourceVersion=10&"), std::string::npos) << watch;
  int timeout = std::stoi(watch.substr(watch.find("timeoutSeconds=") + 15));
  EXPECT_GE(timeout, 300);
  EXPECT_LE(timeout, 600);
  auto stats = r->stats();
  EXPECT_EQ(stats.lists, 1);
  EXPECT_EQ(stats.relists, 0);
  EXPECT_EQ(stats.resource_version, "10");
  EXPECT_NE(stats.last_sync_time, std::chrono::system_clock::time_point{});
  r->Stop();
}

// An exception from the client (here running out of file descriptors, as a client that threw
// would) does not escape the reflector's thread (std::terminate): it is logged and the list is
// retried after the backoff.
TEST_F(ReflectorTest, ClientExceptionIsLoggedAndRetriedNotFatal) {
  std::atomic<int> thrown{0};
  client_.SetHandler([&](const client::Request&) -> std::optional<Result<client::Response>> {
    if (thrown.fetch_add(1) == 0) {
      throw std::system_error(EMFILE, std::generic_category(), "epoll_create");
    }
    return std::nullopt;
  });
  client_.PushResponse("GET", kPods, 200, ListJson("10", {PodJson("a", "3")}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return client_.WatchPaths(kPods).size() == 1; }));
  EXPECT_TRUE(r->HasSynced());
  EXPECT_EQ(recorder_.events(), (std::vector<std::string>{"ADD default/a@3"}));
  EXPECT_EQ(client_.ListPaths(kPods).size(), 2u);
  EXPECT_EQ(CountLogs("Pod reflector: epoll_create: Too many open files"), 1)
      << ::testing::PrintToString(Logs());
  r->Stop();
}

TEST_F(ReflectorTest, DeliversWatchEventsInOrder) {
  client_.PushResponse("GET", kPods, 200, ListJson("10", {PodJson("a", "3"), PodJson("b", "4")}));
  client_.PushWatch(kPods, Script::Hang({Event("ADDED", PodJson("c", "11")),
                                         Event("MODIFIED", PodJson("a", "12")),
                                         Event("DELETED", PodJson("b", "13"))}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 5; }));
  EXPECT_EQ(recorder_.events(),
            (std::vector<std::string>{"ADD default/a@3", "ADD default/b@4", "ADD default/c@11",
                                      "UPDATE default/a 3->12", "DELETE default/b@13"}));
  EXPECT_EQ(r->stats().resource_version, "13");
  r->Stop();
}

TEST_F(ReflectorTest, BookmarkAndStreamEndRewatchFromLastResourceVersion) {
  client_.PushResponse("GET", kPods, 200, ListJson("10", {}));
  client_.PushWatch(kPods, Script::Close({Event("ADDED", PodJson("a", "11")), Bookmark("20")}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return client_.WatchPaths(kPods).size() == 2; }));
  EXPECT_NE(client_.WatchPaths(kPods)[1].find("resourceVersion=20&"), std::string::npos);
  EXPECT_EQ(client_.ListPaths(kPods).size(), 1u);  // no relist
  EXPECT_EQ(r->stats().watch_restarts, 1);
  EXPECT_EQ(recorder_.events(), std::vector<std::string>{"ADD default/a@11"});
  r->Stop();
}

TEST_F(ReflectorTest, GoneEventRelistsAndDeliversTheDiff) {
  client_.PushResponse("GET", kPods, 200,
                       ListJson("10", {PodJson("a", "3"), PodJson("b", "4"), PodJson("c", "5")}));
  client_.PushWatch(kPods, Script::Close({Gone()}));
  // While we were away: b changed, c was deleted, d was created; a is unchanged.
  client_.PushResponse("GET", kPods, 200,
                       ListJson("30", {PodJson("a", "3"), PodJson("b", "25"), PodJson("d", "27")}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return client_.WatchPaths(kPods).size() == 2; }));
  EXPECT_EQ(recorder_.events(),
            (std::vector<std::string>{"ADD default/a@3", "ADD default/b@4", "ADD default/c@5",
                                      "DELETE default/c@5", "UPDATE default/b 4->25",
                                      "ADD default/d@27"}));
  EXPECT_NE(client_.WatchPaths(kPods)[1].find("resourceVersion=30&"), std::string::npos);
  EXPECT_EQ(r->stats().relists, 1);
  EXPECT_EQ(CountLogs("too old resource version"), 1);
  r->Stop();
}

TEST_F(ReflectorTest, GoneHttpStatusOnWatchRelists) {
  client_.PushResponse("GET", kPods, 200, ListJson("10", {PodJson("a", "3")}));
  client_.PushWatch(kPods, Script::Status(410, R"({"message":"gone"})"));
  client_.PushResponse("GET", kPods, 200, ListJson("12", {}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return client_.WatchPaths(kPods).size() == 2; }));
  EXPECT_EQ(recorder_.events(),
            (std::vector<std::string>{"ADD default/a@3", "DELETE default/a@3"}));
  EXPECT_EQ(r->stats().relists, 1);
  r->Stop();
}

// A server that answers every watch with 410 (as an HTTP status, or as an ERROR event after one
// object) is relisted after client-go's growing backoff, not at once: 800 ms, 1.6 s, ... up to
// [30 s, 60 s). Delivering an event does not reset the backoff; two minutes without one do.
TEST_F(ReflectorTest, GoneOnEveryWatchIsRelistedAfterAGrowingBackoffNotAStorm) {
  auto clock = std::make_shared<FakeReflectorClock>();
  auto o = Options();
  o.initial_backoff = ReflectorOptions{}.initial_backoff;
  o.max_backoff = ReflectorOptions{}.max_backoff;
  o.clock = clock;
  EXPECT_EQ(o.initial_backoff, milliseconds(800));
  EXPECT_EQ(o.max_backoff, milliseconds(30000));
  EXPECT_EQ(o.backoff_jitter, 1.0);
  EXPECT_EQ(o.backoff_reset, milliseconds(120000));
  client_.PushResponse("GET", kPods, 200, ListJson("10", {}), /*sticky=*/true);
  constexpr int kWatches = 10;
  for (int i = 0; i < kWatches; ++i) {
    if (i % 2 == 0) {
      client_.PushWatch(kPods, Script::Status(410, R"({"message":"too old resource version"})"));
    } else {
      client_.PushWatch(kPods, Script::Close({Event("ADDED", PodJson("a", "11")), Gone()}));
    }
  }
  auto r = Make(o);
  r->Start();
  // The watch after the last scripted one waits for a script.
  ASSERT_TRUE(WaitFor([&] { return client_.WaitingStreams() == 1; }));
  ASSERT_EQ(client_.WatchPaths(kPods).size(), size_t{kWatches + 1});
  EXPECT_EQ(client_.ListPaths(kPods).size(), size_t{kWatches + 1});
  // One wait before every relist, each longer than the one before until the cap.
  ASSERT_EQ(clock->waits().size(), size_t{kWatches});
  ExpectClientGoBackoff(clock->waits(), kWatches);
  EXPECT_GE(clock->waits().back(), milliseconds(30000));

  // Two minutes without a backoff: the next starts from 800 ms again.
  clock->Advance(std::chrono::minutes(3));
  client_.PushWatch(kPods, Script::Status(410, R"({"message":"too old resource version"})"));
  ASSERT_TRUE(WaitFor([&] { return clock->waits().size() == kWatches + 1; }));
  EXPECT_GE(clock->waits().back(), milliseconds(800));
  EXPECT_LT(clock->waits().back(), milliseconds(1600));
  r->Stop();
}

// Relisting is not a loop either when the list itself keeps failing with 410.
TEST_F(ReflectorTest, FailingListsAreBackedOffLikeClientGo) {
  auto clock = std::make_shared<FakeReflectorClock>();
  auto o = Options();
  o.initial_backoff = milliseconds(800);
  o.max_backoff = milliseconds(30000);
  o.clock = clock;
  client_.PushResponse("GET", kPods, 410, R"({"message":"too old"})", /*sticky=*/true);
  auto r = Make(o);
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return clock->waits().size() >= 8; }));
  r->Stop();
  ExpectClientGoBackoff(clock->waits(), 8);
  EXPECT_LE(client_.ListPaths(kPods).size(), clock->waits().size() + 1);
}

TEST_F(ReflectorTest, DisconnectsBackOffExponentially) {
  client_.PushResponse("GET", kPods, 200, ListJson("10", {}));
  for (int i = 0; i < 3; ++i) client_.PushWatch(kPods, Script::Disconnect());
  client_.PushWatch(kPods, Script::Disconnect({Event("ADDED", PodJson("a", "11"))}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return client_.WatchPaths(kPods).size() == 5; }));
  std::vector<std::chrono::steady_clock::time_point> at;
  for (const auto& rec : client_.Requests()) {
    if (rec.stream) at.push_back(rec.at);
  }
  auto gap = [&](int i) {
    return std::chrono::duration_cast<milliseconds>(at[i + 1] - at[i]).count();
  };
  // 20, 40, 80, 160 ms (plus jitter) after the failed streams; one that delivered an event
  // before it failed does not reset the backoff (only time does, see above).
  EXPECT_GE(gap(0), 18);
  EXPECT_GE(gap(1), 38);
  EXPECT_GE(gap(2), 78);
  EXPECT_GE(gap(3), 158);
  EXPECT_EQ(client_.ListPaths(kPods).size(), 1u);
  EXPECT_EQ(r->stats().watch_restarts, 4);
  // Every re-watch resumes from the last resourceVersion seen.
  EXPECT_NE(client_.WatchPaths(kPods)[3].find("resourceVersion=10&"), std::string::npos);
  EXPECT_NE(client_.WatchPaths(kPods)[4].find("resourceVersion=11&"), std::string::npos);
  EXPECT_GE(CountLogs("connection reset by peer"), 4);
  r->Stop();
}

TEST_F(ReflectorTest, BackoffIsCapped) {
  auto o = Options();
  o.initial_backoff = milliseconds(10);
  o.max_backoff = milliseconds(40);
  client_.PushResponse("GET", kPods, 200, ListJson("10", {}));
  for (int i = 0; i < 6; ++i) client_.PushWatch(kPods, Script::Disconnect());
  auto r = Make(o);
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return client_.WatchPaths(kPods).size() == 7; }));
  std::vector<std::chrono::steady_clock::time_point> at;
  for (const auto& rec : client_.Requests()) {
    if (rec.stream) at.push_back(rec.at);
  }
  auto last_gap = std::chrono::duration_cast<milliseconds>(at[6] - at[5]).count();
  // Capped at 40 ms; uncapped, the sixth wait would be 320 ms (10 doubled five times). The upper
  // bound leaves room for a loaded machine without letting an uncapped backoff pass.
  EXPECT_GE(last_gap, 38);
  EXPECT_LT(last_gap, 200);
  r->Stop();
}

TEST_F(ReflectorTest, ListFailuresAreRetried) {
  client_.PushError("GET", kPods, "GET https://fake/api/v1/pods: connection refused");
  client_.PushResponse("GET", kPods, 500, R"({"message":"etcd is sad"})");
  client_.PushResponse("GET", kPods, 200, "{not json");
  client_.PushResponse("GET", kPods, 200, ListJson("10", {PodJson("a", "1")}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return r->HasSynced(); }));
  EXPECT_EQ(recorder_.events(), std::vector<std::string>{"ADD default/a@1"});
  EXPECT_EQ(CountLogs("connection refused"), 1);
  EXPECT_EQ(CountLogs("list Pod: HTTP 500: etcd is sad"), 1);
  EXPECT_EQ(CountLogs("invalid JSON"), 1);
  r->Stop();
}

TEST_F(ReflectorTest, ExpiredContinueTokenFallsBackToOneFullList) {
  client_.PushResponse("GET", kPods, 200, ListJson("", {PodJson("a", "1")}, "t1"));
  client_.PushResponse("GET", kPods, 410, R"({"message":"continue expired"})");
  client_.PushResponse("GET", kPods, 200, ListJson("20", {PodJson("b", "2")}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return r->HasSynced(); }));
  // The first, partial page never reaches the handler.
  EXPECT_EQ(recorder_.events(), std::vector<std::string>{"ADD default/b@2"});
  // As client-go's pager: the list after an expired token is a full one (no limit).
  EXPECT_EQ(client_.Paths("GET", kPods, false),
            (std::vector<std::string>{"/api/v1/pods?limit=200",
                                      "/api/v1/pods?limit=200&continue=t1", "/api/v1/pods"}));
  r->Stop();
}

// A server that answers 410 to every continue token (and to the full list) gets, per attempt,
// one paged list, one full list, then the backoff: never a loop of restarts.
TEST_F(ReflectorTest, ExpiredContinueTokenAgainFailsTheAttemptAndBacksOff) {
  auto clock = std::make_shared<FakeReflectorClock>();
  auto o = Options();
  o.clock = clock;
  client_.SetHandler([](const client::Request& r) -> std::optional<Result<client::Response>> {
    if (r.path.find("limit=") == std::string::npos ||
        r.path.find("continue=") != std::string::npos) {
      return Result<client::Response>(client::Response{
          410, R"({"kind":"Status","code":410,"message":"continue expired"})", {}});
    }
    return Result<client::Response>(
        client::Response{200, ListJson("", {PodJson("a", "1")}, "t1"), {}});
  });
  auto r = Make(o);
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return clock->waits().size() >= 3; }));
  r->Stop();
  auto paths = client_.Paths("GET", kPods, false);
  ASSERT_GE(paths.size(), 9u);
  for (size_t i = 0; i < 9; ++i) {
    const char* want[] = {"/api/v1/pods?limit=200", "/api/v1/pods?limit=200&continue=t1",
                          "/api/v1/pods"};
    EXPECT_EQ(paths[i], want[i % 3]) << i;
  }
  EXPECT_LE(paths.size(), 3 * (clock->waits().size() + 1));
  EXPECT_FALSE(r->HasSynced());
  EXPECT_GE(CountLogs("list Pod: HTTP 410: continue expired"), 3);
}

// A continue token the server already gave in this list ends the attempt (then the backoff),
// instead of reading the same pages forever.
TEST_F(ReflectorTest, RepeatedContinueTokenFailsTheListAttempt) {
  auto clock = std::make_shared<FakeReflectorClock>();
  auto o = Options();
  o.clock = clock;
  client_.PushResponse("GET", kPods, 200, ListJson("", {PodJson("a", "1")}, "same"),
                       /*sticky=*/true);
  auto r = Make(o);
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return clock->waits().size() >= 2; }));
  r->Stop();
  EXPECT_FALSE(r->HasSynced());
  EXPECT_TRUE(recorder_.events().empty());
  EXPECT_GE(CountLogs("list Pod (https://fake/api/v1/pods): the server repeated continue token "
                      "\"same\" (page 2)"),
            2)
      << ::testing::PrintToString(Logs());
  EXPECT_LE(client_.ListPaths(kPods).size(), 2 * (clock->waits().size() + 1));
}

// Fresh tokens forever are stopped by the bound on items of one list.
TEST_F(ReflectorTest, EndlessListIsBounded) {
  auto clock = std::make_shared<FakeReflectorClock>();
  auto o = Options();
  o.clock = clock;
  o.list_bounds.max_items = 5;
  std::atomic<int> page{0};
  client_.SetHandler([&](const client::Request&) -> std::optional<Result<client::Response>> {
    std::string n = std::to_string(++page);
    return Result<client::Response>(client::Response{
        200, ListJson("", {PodJson("a" + n, "1"), PodJson("b" + n, "1")}, "t" + n), {}});
  });
  auto r = Make(o);
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return clock->waits().size() >= 1; }));
  r->Stop();
  EXPECT_FALSE(r->HasSynced());
  EXPECT_GE(
      CountLogs("list Pod (https://fake/api/v1/pods): more than 5 items in one list (page 3); "
                "stopping"),
      1)
      << ::testing::PrintToString(Logs());
  EXPECT_EQ(ReflectorOptions{}.list_bounds.max_items, 1000000);
}

TEST_F(ReflectorTest, BadObjectIsLoggedOnceAndSkipped) {
  client_.PushResponse("GET", kPods, 200,
                       ListJson("10", {PodJson("bad", "3", "1.5.3"), PodJson("good", "4")}));
  client_.PushWatch(kPods,
                    Script::Close({Event("MODIFIED", PodJson("bad", "3", "1.5.3")), "{garbage"}));
  client_.PushWatch(kPods, Script::Close({Gone()}));
  client_.PushResponse("GET", kPods, 200,
                       ListJson("20", {PodJson("bad", "3", "1.5.3"), PodJson("good", "4")}));
  client_.PushWatch(kPods, Script::Hang({Event("ADDED", PodJson("new", "21"))}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 2; }));
  EXPECT_EQ(recorder_.events(),
            (std::vector<std::string>{"ADD default/good@4", "ADD default/new@21"}));
  EXPECT_EQ(CountLogs("Pod default/bad: spec.containers[0].resources.requests.cpu:"), 1)
      << ::testing::PrintToString(Logs());
  EXPECT_EQ(CountLogs("bad event"), 1);
  EXPECT_EQ(r->stats().decode_errors, 1);
  r->Stop();
}

TEST_F(ReflectorTest, ObjectThatBecomesBadKeepsItsLastGoodVersionAndCanBeDeleted) {
  client_.PushResponse("GET", kPods, 200, ListJson("10", {PodJson("a", "3")}));
  client_.PushWatch(kPods, Script::Hang({Event("MODIFIED", PodJson("a", "11", "x")),
                                         Event("DELETED", PodJson("a", "12", "x"))}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 2; }));
  EXPECT_EQ(recorder_.events(),
            (std::vector<std::string>{"ADD default/a@3", "DELETE default/a@3"}));
  r->Stop();
}

TEST_F(ReflectorTest, OptionalResourceAbsentIsSyncedAndPolledUntilItAppears) {
  auto o = Options();
  o.optional = true;
  o.kind = "PodGroup";
  client_.PushResponse("GET", kPods, 404, R"({"message":"the server could not find it"})");
  client_.PushResponse("GET", kPods, 404, R"({"message":"the server could not find it"})");
  client_.PushResponse("GET", kPods, 404, R"({"message":"the server could not find it"})");
  auto r = Make(o);
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return r->HasSynced(); }));
  EXPECT_TRUE(r->stats().absent);
  ASSERT_TRUE(WaitFor([&] { return client_.ListPaths(kPods).size() >= 3; }));
  EXPECT_EQ(CountLogs("PodGroup is not served"), 1);  // not once per poll
  EXPECT_TRUE(client_.WatchPaths(kPods).empty());
  client_.PushResponse("GET", kPods, 200, ListJson("5", {PodJson("g", "4")}));
  ASSERT_TRUE(WaitFor([&] { return recorder_.size() == 1; }));
  EXPECT_FALSE(r->stats().absent);
  ASSERT_TRUE(WaitFor([&] { return client_.WatchPaths(kPods).size() == 1; }));
  EXPECT_EQ(recorder_.events(), std::vector<std::string>{"ADD default/g@4"});
  r->Stop();
}

TEST_F(ReflectorTest, RequiredResourceNotFoundIsAnErrorAndNotSynced) {
  client_.PushResponse("GET", kPods, 404, R"({"message":"not found"})", /*sticky=*/true);
  auto r = Make();
  r->Start();
  // The log line of a failed list is written after the fake answers it: wait for the lines
  // themselves, not for the requests (under ASan the second line came later than the request).
  ASSERT_TRUE(WaitFor([&] { return CountLogs("list Pod: HTTP 404: not found") >= 2; }))
      << ::testing::PrintToString(Logs());
  EXPECT_GE(client_.ListPaths(kPods).size(), 2u);
  EXPECT_FALSE(r->HasSynced());
  r->Stop();
}

TEST_F(ReflectorTest, StopInterruptsWatchAndBackoffPromptly) {
  client_.PushResponse("GET", kPods, 200, ListJson("10", {}));
  auto r = Make();
  r->Start();
  ASSERT_TRUE(WaitFor([&] { return client_.WaitingStreams() == 1; }));
  auto start = std::chrono::steady_clock::now();
  r->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));

  // Now during a long backoff.
  auto o = Options();
  o.initial_backoff = milliseconds(60000);
  FakeKubeClient failing;
  Recorder rec;
  Reflector r2(failing, o, PodDecoder(), rec);
  r2.Start();
  ASSERT_TRUE(WaitFor([&] { return failing.ListPaths(kPods).size() == 1; }));
  start = std::chrono::steady_clock::now();
  r2.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
}

TEST(ObjectKeyTest, NamespacedAndClusterScoped) {
  api::Value pod = api::Value::MakeObject();
  api::Value meta = api::Value::MakeObject();
  meta.Set("name", api::Value::String("p"));
  meta.Set("namespace", api::Value::String("ns"));
  meta.Set("resourceVersion", api::Value::String("7"));
  pod.Set("metadata", meta);
  EXPECT_EQ(ObjectKey(pod), "ns/p");
  EXPECT_EQ(ObjectResourceVersion(pod), "7");
  api::Value node = api::Value::MakeObject();
  api::Value node_meta = api::Value::MakeObject();
  node_meta.Set("name", api::Value::String("n1"));
  node.Set("metadata", node_meta);
  EXPECT_EQ(ObjectKey(node), "n1");
  EXPECT_EQ(ObjectResourceVersion(node), "");
}

}  // namespace
}  // namespace berth::informers
