#include "informers/leader_election.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <regex>
#include <string>
#include <system_error>
#include <thread>

#include "api/json/parse.h"
#include "test/testing/fake_kube_client.h"

namespace berth::informers {
namespace {

using std::chrono::milliseconds;
using testing::FakeKubeClient;
using testing::WaitFor;

constexpr char kLeases[] = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
constexpr char kLease[] = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/berth";

// An in-memory Lease endpoint with the API server's create / resourceVersion-precondition rules.
class LeaseServer {
 public:
  struct Spec {
    std::string holder;
    int64_t duration = 0;
    std::string acquire_time, renew_time;
    int64_t transitions = 0;
  };

  explicit LeaseServer(FakeKubeClient& kc) {
    kc.SetHandler([this](const client::Request& r) { return Handle(r); });
  }

  std::optional<Result<client::Response>> Handle(const client::Request& req) {
    std::lock_guard lock(mu_);
    ++requests_;
    std::string path = req.path;
    if (req.method != "GET") {
      // Writes ask for strict field validation.
      EXPECT_TRUE(path.ends_with("?fieldValidation=Strict")) << path;
      path = path.substr(0, path.find('?'));
    }
    if (fail_all) return client::Response{500, R"({"message":"etcdserver: timeout"})", {}};
    if (req.method == "GET" && path == kLease) {
      if (!exists_) return client::Response{404, R"({"message":"not found","code":404})", {}};
      return client::Response{200, Body(), {}};
    }
    if (req.method == "POST" && path == kLeases) {
      if (exists_) return client::Response{409, R"({"reason":"AlreadyExists"})", {}};
      if (!Store(req.body)) return client::Response{400, "bad body", {}};
      return client::Response{201, Body(), {}};
    }
    if (req.method == "PUT" && path == kLease) {
      if (!exists_) return client::Response{404, "{}", {}};
      auto v = api::json::ParseJson(req.body);
      const api::Value* rv = v.ok() ? v->Find("metadata")->Find("resourceVersion") : nullptr;
      if (conflict_puts || rv == nullptr || rv->AsString() != std::to_string(rv_)) {
        return client::Response{409, R"({"reason":"Conflict"})", {}};
      }
      if (!Store(req.body)) return client::Response{400, "bad body", {}};
      return client::Response{200, Body(), {}};
    }
    return client::Response{404, "{}", {}};
  }

  // What another process would write.
  void Set(const Spec& s) {
    std::lock_guard lock(mu_);
    exists_ = true;
    spec_ = s;
    ++rv_;
  }
  std::optional<Spec> Get() {
    std::lock_guard lock(mu_);
    if (!exists_) return std::nullopt;
    return spec_;
  }

  std::atomic<bool> fail_all{false};
  std::atomic<bool> conflict_puts{false};

 private:
  bool Store(const std::string& body) {
    auto v = api::json::ParseJson(body);
    if (!v.ok()) return false;
    const api::Value* spec = v->Find("spec");
    if (spec == nullptr) return false;
    auto str = [&](const char* k) {
      const api::Value* f = spec->Find(k);
      return f != nullptr && f->IsString() ? f->AsString() : std::string();
    };
    auto num = [&](const char* k) {
      const api::Value* f = spec->Find(k);
      return f != nullptr && f->IsInt() ? f->AsInt() : int64_t{0};
    };
    spec_ = Spec{str("holderIdentity"), num("leaseDurationSeconds"), str("acquireTime"),
                 str("renewTime"), num("leaseTransitions")};
    exists_ = true;
    ++rv_;
    return true;
  }
  std::string Body() const {
    return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"berth",)"
           R"("namespace":"kube-system","resourceVersion":")" +
           std::to_string(rv_) + R"("},"spec":{"holderIdentity":")" + spec_.holder +
           R"(","leaseDurationSeconds":)" + std::to_string(spec_.duration) + R"(,"acquireTime":")" +
           spec_.acquire_time + R"(","renewTime":")" + spec_.renew_time +
           R"(","leaseTransitions":)" + std::to_string(spec_.transitions) + "}}";
  }

  std::mutex mu_;  // guards the fields below
  bool exists_ = false;
  Spec spec_;
  int64_t rv_ = 100;
  int requests_ = 0;
};

struct Calls {
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::mutex mu;
  std::vector<std::string> leaders;
};

LeaderElectionConfig Fast(const std::string& id, Calls* calls) {
  LeaderElectionConfig c;
  c.identity = id;
  c.lease_duration = milliseconds(1000);
  c.renew_deadline = milliseconds(500);
  c.retry_period = milliseconds(100);
  c.on_started_leading = [calls] { ++calls->started; };
  c.on_stopped_leading = [calls] { ++calls->stopped; };
  c.on_new_leader = [calls](const std::string& who) {
    std::lock_guard lock(calls->mu);
    calls->leaders.push_back(who);
  };
  c.log = [](std::string_view) {};
  return c;
}

std::unique_ptr<LeaderElector> MakeElector(FakeKubeClient& kc, LeaderElectionConfig c) {
  auto e = LeaderElector::Create(kc, std::move(c));
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error());
  return std::move(*e);
}

const std::regex kMicroTime(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)");

TEST(LeaderElectionTest, CreatesAnAbsentLeaseAndRenewsIt) {
  FakeKubeClient kc;
  LeaseServer server(kc);
  Calls calls;
  auto e = MakeElector(kc, Fast("a", &calls));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  EXPECT_EQ(calls.started.load(), 1);
  EXPECT_EQ(e->GetLeader(), "a");
  auto first = *server.Get();
  EXPECT_EQ(first.holder, "a");
  EXPECT_EQ(first.duration, 1);
  EXPECT_EQ(first.transitions, 0);
  EXPECT_TRUE(std::regex_match(first.renew_time, kMicroTime)) << first.renew_time;
  EXPECT_TRUE(std::regex_match(first.acquire_time, kMicroTime)) << first.acquire_time;
  ASSERT_TRUE(WaitFor([&] { return server.Get()->renew_time != first.renew_time; }));
  EXPECT_EQ(server.Get()->acquire_time, first.acquire_time);  // a renewal keeps acquireTime
  EXPECT_EQ(server.Get()->transitions, 0);
  e->Stop();
  EXPECT_EQ(calls.stopped.load(), 1);
  EXPECT_FALSE(e->IsLeader());
  // Released: empty holder, 1 s lease.
  EXPECT_EQ(server.Get()->holder, "");
  EXPECT_EQ(server.Get()->duration, 1);
  std::lock_guard lock(calls.mu);
  EXPECT_EQ(calls.leaders, std::vector<std::string>{"a"});
}

// An exception from the client while leading (e.g. out of file descriptors) does not escape the
// elector's thread (std::terminate): leadership ends as after a failed renewal, and the elector
// campaigns again and leads again.
TEST(LeaderElectionTest, ClientExceptionEndsLeadershipAndCampaignsAgain) {
  FakeKubeClient kc;
  LeaseServer server(kc);
  std::atomic<bool> throw_next{false};
  kc.SetHandler([&](const client::Request& r) -> std::optional<Result<client::Response>> {
    if (throw_next.exchange(false)) {
      throw std::system_error(EMFILE, std::generic_category(), "epoll_create");
    }
    return server.Handle(r);
  });
  Calls calls;
  LeaderElectionConfig c = Fast("a", &calls);
  std::mutex log_mu;
  std::vector<std::string> logs;
  c.log = [&](std::string_view line) {
    std::lock_guard lock(log_mu);
    logs.emplace_back(line);
  };
  auto e = MakeElector(kc, std::move(c));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  throw_next = true;
  ASSERT_TRUE(WaitFor([&] { return calls.stopped.load() == 1; }));
  ASSERT_TRUE(WaitFor([&] { return calls.started.load() == 2 && e->IsLeader(); }));
  e->Stop();
  std::lock_guard lock(log_mu);
  bool logged = false;
  for (const auto& l : logs) {
    logged |= l == "leader election: epoll_create: Too many open files; campaigning again";
  }
  EXPECT_TRUE(logged) << ::testing::PrintToString(logs);
}

TEST(LeaderElectionTest, ExactlyOneOfTwoLeadsAndReleaseHandsOver) {
  FakeKubeClient kc;
  LeaseServer server(kc);
  Calls ca, cb;
  auto a = MakeElector(kc, Fast("a", &ca));
  auto b = MakeElector(kc, Fast("b", &cb));
  a->Start();
  b->Start();
  ASSERT_TRUE(WaitFor([&] { return a->IsLeader() || b->IsLeader(); }));
  for (int i = 0; i < 40; ++i) {
    EXPECT_FALSE(a->IsLeader() && b->IsLeader());
    EXPECT_TRUE(a->IsLeader() || b->IsLeader());
    std::this_thread::sleep_for(milliseconds(10));
  }
  LeaderElector* leader = a->IsLeader() ? a.get() : b.get();
  LeaderElector* standby = a->IsLeader() ? b.get() : a.get();
  EXPECT_EQ(standby->GetLeader(), leader->identity());
  auto stopped_at = std::chrono::steady_clock::now();
  leader->Stop();
  // Released: the standby need not wait for the 1 s lease to expire (retry 100 ms, jitter 1.2).
  ASSERT_TRUE(WaitFor([&] { return standby->IsLeader(); }, milliseconds(2000)));
  EXPECT_LT(std::chrono::steady_clock::now() - stopped_at, milliseconds(900));
  EXPECT_EQ(server.Get()->holder, standby->identity());
  EXPECT_EQ(server.Get()->transitions, 1);
  EXPECT_EQ(ca.started + cb.started, 2);
  EXPECT_EQ(ca.stopped + cb.stopped, 1);
  standby->Stop();
}

TEST(LeaderElectionTest, WaitsUntilARenewedLeaseHeldByAnotherStopsChanging) {
  FakeKubeClient kc;
  LeaseServer server(kc);
  // Timestamps far in the past: expiry is judged by local observation, not renewTime.
  server.Set({"other", 1, "2000-01-01T00:00:00.000000Z", "2000-01-01T00:00:00.000000Z", 4});
  std::atomic<bool> renewing{true};
  std::thread other([&] {
    int n = 0;
    while (renewing) {
      server.Set({"other", 1, "2000-01-01T00:00:00.000000Z",
                  "2000-01-01T00:00:0" + std::to_string(++n % 10) + ".000000Z", 4});
      std::this_thread::sleep_for(milliseconds(200));
    }
  });
  Calls calls;
  auto e = MakeElector(kc, Fast("a", &calls));
  e->Start();
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_FALSE(e->IsLeader());
  EXPECT_EQ(e->GetLeader(), "other");
  renewing = false;
  other.join();
  auto stopped_renewing = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }, milliseconds(3000)));
  // Not before leaseDurationSeconds (1 s) of silence.
  EXPECT_GE(std::chrono::steady_clock::now() - stopped_renewing, milliseconds(700));
  EXPECT_EQ(server.Get()->transitions, 5);
  e->Stop();
  std::lock_guard lock(calls.mu);
  EXPECT_EQ(calls.leaders, (std::vector<std::string>{"other", "a"}));
}

TEST(LeaderElectionTest, LosesLeadershipWhenRenewalsFailForTheRenewDeadline) {
  FakeKubeClient kc;
  LeaseServer server(kc);
  Calls calls;
  auto e = MakeElector(kc, Fast("a", &calls));
  e->Start();
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }));
  server.fail_all = true;
  auto failing_since = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitFor([&] { return calls.stopped.load() == 1; }, milliseconds(3000)));
  auto took = std::chrono::steady_clock::now() - failing_since;
  EXPECT_GE(took, milliseconds(450));   // renew_deadline
  EXPECT_LT(took, milliseconds(1200));  // + a retry period or two
  EXPECT_FALSE(e->IsLeader());
  // The lease is still ours on the server: once it answers again we take it back at once.
  server.fail_all = false;
  ASSERT_TRUE(WaitFor([&] { return calls.started.load() == 2; }, milliseconds(2000)));
  EXPECT_TRUE(e->IsLeader());
  e->Stop();
  EXPECT_EQ(calls.stopped.load(), 2);
}

TEST(LeaderElectionTest, ConflictOnUpdateMeansSomeoneElseWon) {
  FakeKubeClient kc;
  LeaseServer server(kc);
  server.Set({"", 1, "", "", 2});  // released by its last holder
  server.conflict_puts = true;
  Calls calls;
  auto e = MakeElector(kc, Fast("a", &calls));
  e->Start();
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_FALSE(e->IsLeader());
  EXPECT_EQ(calls.started.load(), 0);
  server.conflict_puts = false;
  ASSERT_TRUE(WaitFor([&] { return e->IsLeader(); }, milliseconds(2000)));
  EXPECT_EQ(server.Get()->transitions, 3);
  e->Stop();
}

TEST(LeaderElectionTest, StopWhileCandidateDoesNotCallStoppedLeading) {
  FakeKubeClient kc;
  LeaseServer server(kc);
  server.Set({"other", 30, "", "", 0});
  Calls calls;
  auto e = MakeElector(kc, Fast("a", &calls));
  e->Start();
  std::this_thread::sleep_for(milliseconds(150));
  auto start = std::chrono::steady_clock::now();
  e->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(300));
  EXPECT_EQ(calls.stopped.load(), 0);
  EXPECT_EQ(server.Get()->holder, "other");
}

TEST(LeaderElectionConfigTest, ValidatesLikeClientGo) {
  struct Case {
    int lease, renew, retry;
    std::string error;
  };
  const Case cases[] = {
      {15000, 10000, 2000, ""},
      {10000, 10000, 2000, "leaseDuration (10s) must be greater than renewDeadline (10s)"},
      {15000, 2400, 2000, "renewDeadline (2.400s) must be greater than 1.2 * retryPeriod (2s)"},
      {0, 10000, 2000, "leaseDuration must be greater than zero"},
      {15000, 10000, 0, "retryPeriod must be greater than zero"},
  };
  for (const auto& c : cases) {
    LeaderElectionConfig cfg;
    cfg.lease_duration = milliseconds(c.lease);
    cfg.renew_deadline = milliseconds(c.renew);
    cfg.retry_period = milliseconds(c.retry);
    Ok ok = ValidateLeaderElectionConfig(cfg);
    EXPECT_EQ(ok.ok() ? "" : ok.error(), c.error);
  }
  LeaderElectionConfig no_name;
  no_name.lease_name = "";
  EXPECT_FALSE(ValidateLeaderElectionConfig(no_name).ok());
  FakeKubeClient kc;
  LeaderElectionConfig bad;
  bad.renew_deadline = milliseconds(20000);
  auto e = LeaderElector::Create(kc, bad);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error(),
            "leader election: leaseDuration (15s) must be greater than renewDeadline (20s)");
}

TEST(LeaderElectionConfigTest, DefaultIdentityIsHostnameUnderscoreRandom) {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string id = DefaultIdentity();
  EXPECT_TRUE(std::regex_match(id, std::regex(std::string(host) + "_[0-9a-f]{32}"))) << id;
  EXPECT_NE(DefaultIdentity(), id);
  FakeKubeClient kc;
  auto e = LeaderElector::Create(kc, LeaderElectionConfig{});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->identity().rfind(std::string(host) + "_", 0), 0u);
}

}  // namespace
}  // namespace berth::informers
