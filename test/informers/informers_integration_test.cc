// Informers and leader election against a real kube-apiserver + etcd (test/cluster/up).
// Each test starts its own cluster; when it cannot start, the test fails with the script's output.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "informers/client/beast_client.h"
#include "informers/client/config.h"
#include "informers/informer.h"
#include "informers/leader_election.h"
#include "test/testing/fake_kube_client.h"  // WaitFor

namespace berth::informers {
namespace {

using std::chrono::milliseconds;
using testing::WaitFor;

// Runs a shell command; returns its exit status and combined output.
std::pair<int, std::string> Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Forwards 127.0.0.1:port() to 127.0.0.1:target. Cut() drops every connection and refuses new
// ones until Restore(): a network partition between an informer and the API server.
class TcpProxy {
 public:
  explicit TcpProxy(int target) : target_(target) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(listen_fd_, 64);
    socklen_t len = sizeof(addr);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~TcpProxy() {
    stop_ = true;
    Cut();
    acceptor_.join();
    for (auto& t : pumps_) t.join();
    close(listen_fd_);
  }
  int port() const { return port_; }
  void Cut() {
    std::lock_guard lock(mu_);
    cut_ = true;
    for (int fd : live_) shutdown(fd, SHUT_RDWR);
  }
  void Restore() {
    std::lock_guard lock(mu_);
    cut_ = false;
  }

 private:
  void Accept() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      int client = accept(listen_fd_, nullptr, nullptr);
      if (client < 0) continue;
      std::lock_guard lock(mu_);
      if (cut_) {
        close(client);
        continue;
      }
      int upstream = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<uint16_t>(target_));
      if (connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        close(client);
        close(upstream);
        continue;
      }
      live_.insert(client);
      live_.insert(upstream);
      pumps_.emplace_back([this, client, upstream] { Pump(client, upstream); });
    }
  }
  void Pump(int a, int b) {
    std::array<char, 16384> buf;
    for (;;) {
      pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
      if (poll(p, 2, 100) < 0) break;
      bool done = false;
      for (int i = 0; i < 2 && !done; ++i) {
        if (p[i].revents == 0) continue;
        ssize_t n = read(p[i].fd, buf.data(), buf.size());
        if (n <= 0) {
          done = true;
          break;
        }
        int to = p[i].fd == a ? b : a;
        for (ssize_t off = 0; off < n;) {
          ssize_t w = send(to, buf.data() + off, n - off, MSG_NOSIGNAL);  // a closed peer: EPIPE
          if (w <= 0) {
            done = true;
            break;
          }
          off += w;
        }
      }
      if (done || stop_) break;
    }
    std::lock_guard lock(mu_);
    live_.erase(a);
    live_.erase(b);
    close(a);
    close(b);
  }

  const int target_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  std::mutex mu_;  // guards cut_, live_, pumps_
  bool cut_ = false;
  std::set<int> live_;
  std::vector<std::thread> pumps_;
};

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/berth-informers-it-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto [rc, out] = Shell(Script("up") + " " + dir_);
    ASSERT_EQ(rc, 0) << "test/cluster/up failed (needs Go to build kube-apiserver and etcd, "
                        "openssl, curl, kubectl):\n"
                     << out;
    auto cfg = client::LoadKubeconfig(dir_ + "/kubeconfig");
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    config_ = *cfg;
    api_port_ = std::stoi(Env("API_PORT"));
    client_ = client::NewBeastClient(config_, 100, 200);
  }
  void TearDown() override {
    if (!dir_.empty()) {
      Shell(Script("down") + " " + dir_);
      Shell("rm -rf " + dir_);
    }
  }
  static std::string Script(const std::string& name) {
    return std::string(BERTH_SOURCE_DIR) + "/test/cluster/" + name;
  }
  std::string Env(const std::string& key) {
    std::ifstream in(dir_ + "/env");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
    }
    return "";
  }
  // Sends a request with the test's own client; fails the test on a transport error.
  client::Response Call(const std::string& method, const std::string& path,
                        const std::string& body = "",
                        const std::string& content_type = "application/json") {
    client::Request req;
    req.method = method;
    req.path = path;
    req.body = body;
    req.content_type = content_type;
    auto r = client_->Do(req);
    EXPECT_TRUE(r.ok()) << method << " " << path << ": " << (r.ok() ? "" : r.error());
    return r.ok() ? *r : client::Response{};
  }
  void CreatePod(const std::string& name) {
    auto r = Call("POST", "/api/v1/namespaces/default/pods",
                  R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                      R"("},"spec":{"schedulerName":"berth","containers":[{"name":"c",)"
                      R"("image":"registry.k8s.io/pause:3.10"}]}})");
    EXPECT_EQ(r.status, 201) << r.body;
  }
  void DeletePod(const std::string& name) {
    auto r = Call("DELETE", "/api/v1/namespaces/default/pods/" + name + "?gracePeriodSeconds=0");
    EXPECT_EQ(r.status, 200) << r.body;
  }
  static ReflectorOptions Fast() {
    ReflectorOptions o;
    o.initial_backoff = milliseconds(100);
    o.max_backoff = milliseconds(500);
    o.absent_poll_interval = milliseconds(1000);
    return o;
  }

  std::string dir_;
  client::ClientConfig config_;
  int api_port_ = 0;
  std::unique_ptr<client::KubeClient> client_;
};

TEST_F(ClusterTest, InformersSeeObjectsCreatedUpdatedAndDeletedThroughTheApi) {
  auto informer_client = client::NewBeastClient(config_, 100, 200);
  api::ClusterObjects objects;
  InformerFactory factory(*informer_client, objects, Fast());
  std::mutex mu;
  std::vector<std::string> node_events;
  factory.nodes().AddEventHandlers({
      .on_add =
          [&](const auto& n) {
            std::lock_guard lock(mu);
            node_events.push_back("add " + n->metadata.name);
          },
      .on_update =
          [&](const auto&, const auto& n) {
            std::lock_guard lock(mu);
            node_events.push_back(
                "update " + n->metadata.name +
                " zone=" + (n->metadata.labels.count("zone") ? n->metadata.labels.at("zone") : ""));
          },
      .on_delete =
          [&](const auto& n) {
            std::lock_guard lock(mu);
            node_events.push_back("delete " + n->metadata.name);
          },
  });
  factory.Start();
  Ok synced = factory.WaitForCacheSync(milliseconds(30000));
  ASSERT_TRUE(synced.ok()) << synced.error();
  EXPECT_NE(objects.namespaces.Get("default"), nullptr);
  EXPECT_NE(objects.namespaces.Get("kube-system"), nullptr);

  auto r = Call("POST", "/api/v1/nodes",
                R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},)"
                R"("status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},)"
                R"("allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  CreatePod("p1");
  ASSERT_TRUE(WaitFor([&] { return factory.nodes().store().Get("n1") != nullptr; }));
  ASSERT_TRUE(WaitFor([&] { return objects.pods.Get("default", "p1") != nullptr; }));
  EXPECT_EQ(objects.pods.Get("default", "p1")->spec.scheduler_name, "berth");

  r = Call("PATCH", "/api/v1/nodes/n1", R"({"metadata":{"labels":{"zone":"a"}}})",
           "application/merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  r = Call("DELETE", "/api/v1/nodes/n1");
  ASSERT_EQ(r.status, 200) << r.body;
  DeletePod("p1");
  ASSERT_TRUE(WaitFor([&] { return objects.pods.Get("default", "p1") == nullptr; }));
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard lock(mu);
    return node_events.size() == 3;
  }));
  std::lock_guard lock(mu);
  EXPECT_EQ(node_events, (std::vector<std::string>{"add n1", "update n1 zone=a", "delete n1"}));
  // Neither the PodGroup CRD nor the storage.deckhouse.io CRDs are installed here: those
  // informers report the kind absent instead of listing.
  const std::set<std::string> crd_kinds = {
      "PodGroup",       "ReplicatedStorageClass", "ReplicatedStoragePool",
      "LVMVolumeGroup", "LVMLogicalVolume",       "ReplicatedVolume"};
  for (const auto& [kind, stats] : factory.Stats()) {
    const bool crd = crd_kinds.count(kind) > 0;
    EXPECT_EQ(stats.lists, crd ? 0 : 1) << kind;
    EXPECT_EQ(stats.absent, crd) << kind;
  }
  auto start = std::chrono::steady_clock::now();
  factory.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(3000));
}

TEST_F(ClusterTest, ChangesWhileDisconnectedAreDeliveredAfterReconnect) {
  TcpProxy proxy(api_port_);
  client::ClientConfig via_proxy = config_;
  via_proxy.server = "https://127.0.0.1:" + std::to_string(proxy.port());
  client::ClientOptions opts;
  opts.max_retries = 0;
  opts.timeout = milliseconds(2000);
  auto informer_client = client::NewBeastClient(via_proxy, 100, 200, opts);

  CreatePod("p1");
  CreatePod("p2");
  ReflectorOptions o = Fast();
  o.kind = "Pod";
  o.list_path = "/api/v1/pods";
  o.request_timeout = milliseconds(2000);
  Informer<api::Pod> pods(*informer_client, o, api::DecodePod);
  std::mutex mu;
  std::vector<std::string> events;
  EventHandlers<api::Pod> handlers;
  handlers.on_add = [&](const auto& p) {
    std::lock_guard lock(mu);
    events.push_back("add " + p->metadata.name);
  };
  handlers.on_delete = [&](const auto& p) {
    std::lock_guard lock(mu);
    events.push_back("delete " + p->metadata.name);
  };
  pods.AddEventHandlers(handlers);
  pods.Start();
  ASSERT_TRUE(
      WaitFor([&] { return pods.HasSynced() && pods.store().Size() == 2; }, milliseconds(20000)));

  proxy.Cut();
  DeletePod("p1");
  CreatePod("p3");
  // Also restart the API server (etcd kept) while we are cut off: its watch cache starts over.
  auto [rc_down, out_down] = Shell(Script("down") + " " + dir_ + " --keep-etcd");
  ASSERT_EQ(rc_down, 0) << out_down;
  auto [rc_up, out_up] =
      Shell("API_PORT=" + std::to_string(api_port_) + " " + Script("up") + " " + dir_);
  ASSERT_EQ(rc_up, 0) << out_up;
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(events, (std::vector<std::string>{"add p1", "add p2"}));
  }
  proxy.Restore();
  ASSERT_TRUE(WaitFor(
      [&] {
        std::lock_guard lock(mu);
        return events.size() == 4;
      },
      milliseconds(20000)));
  {
    std::lock_guard lock(mu);
    std::multiset<std::string> tail(events.begin() + 2, events.end());
    EXPECT_EQ(tail, (std::multiset<std::string>{"delete p1", "add p3"}));
  }
  EXPECT_EQ(pods.store().Get("default", "p1"), nullptr);
  EXPECT_NE(pods.store().Get("default", "p2"), nullptr);
  EXPECT_NE(pods.store().Get("default", "p3"), nullptr);
  auto stats = pods.stats();
  EXPECT_GE(stats.watch_restarts + stats.relists, 1);
  std::cerr << "reconnect: relists=" << stats.relists << " watch_restarts=" << stats.watch_restarts
            << "\n";

  // And the watch keeps working afterwards.
  CreatePod("p4");
  ASSERT_TRUE(
      WaitFor([&] { return pods.store().Get("default", "p4") != nullptr; }, milliseconds(10000)));
  pods.Stop();
}

TEST_F(ClusterTest, LeaderElectionOneLeaderAndReleaseHandsOver) {
  auto make = [&](const std::string& id, std::atomic<int>* started) {
    LeaderElectionConfig c;
    c.lease_namespace = "kube-system";
    c.lease_name = "berth-it";
    c.identity = id;
    c.lease_duration = milliseconds(4000);
    c.renew_deadline = milliseconds(3000);
    c.retry_period = milliseconds(500);
    c.on_started_leading = [started] { ++*started; };
    auto e = LeaderElector::Create(*client_, c);
    EXPECT_TRUE(e.ok());
    return std::move(*e);
  };
  std::atomic<int> a_started{0}, b_started{0};
  auto a = make("elector-a", &a_started);
  auto b = make("elector-b", &b_started);
  a->Start();
  b->Start();
  ASSERT_TRUE(WaitFor([&] { return a->IsLeader() || b->IsLeader(); }, milliseconds(10000)));
  for (int i = 0; i < 30; ++i) {
    ASSERT_NE(a->IsLeader(), b->IsLeader()) << "exactly one elector must lead";
    std::this_thread::sleep_for(milliseconds(100));
  }
  LeaderElector* leader = a->IsLeader() ? a.get() : b.get();
  LeaderElector* standby = a->IsLeader() ? b.get() : a.get();
  auto lease = Call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/berth-it");
  ASSERT_EQ(lease.status, 200);
  EXPECT_NE(lease.body.find("\"holderIdentity\":\"" + leader->identity() + "\""), std::string::npos)
      << lease.body;
  EXPECT_NE(lease.body.find("\"leaseDurationSeconds\":4"), std::string::npos) << lease.body;
  EXPECT_EQ(standby->GetLeader(), leader->identity());

  auto released_at = std::chrono::steady_clock::now();
  leader->Stop();
  ASSERT_TRUE(WaitFor([&] { return standby->IsLeader(); }, milliseconds(5000)));
  // Well before the 4 s lease would have expired.
  EXPECT_LT(std::chrono::steady_clock::now() - released_at, milliseconds(2500));
  lease = Call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/berth-it");
  EXPECT_NE(lease.body.find("\"holderIdentity\":\"" + standby->identity() + "\""),
            std::string::npos)
      << lease.body;
  EXPECT_NE(lease.body.find("\"leaseTransitions\":1"), std::string::npos) << lease.body;
  EXPECT_EQ(a_started + b_started, 2);
  standby->Stop();
}

}  // namespace
}  // namespace berth::informers
