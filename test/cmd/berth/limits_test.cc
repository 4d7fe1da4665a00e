// The berth binary at the edge of its resources: out of memory under an address-space limit is one
// line and exit 2 (never an abort with a core), and a server that accepts connections and never
// answers fails `berth simulate --kubeconfig` and `berth explain` within --request-timeout (it
// took 6-7 minutes of retries).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include "test/cmd/berth/run_berth.h"
#include "test/informers/client/fake_http_server.h"

namespace {

using berth::client::testing::FakeHttpServer;
using berth::client::testing::Reply;

// ctest runs each test as its own process, two at a time, in one TempDir: the process id keeps
// one test's files (a kubeconfig naming its own server) from replacing another's.
std::string Write(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

// `berth ARGS` under `ulimit -v kib` (RLIMIT_AS), stderr captured.
berth::testing::Run BerthLimited(size_t kib, const std::string& args) {
  const std::string err_file = ::testing::TempDir() + "/limits_err_" + std::to_string(getpid());
  const std::string cmd = "sh -c 'ulimit -c 0; ulimit -v " + std::to_string(kib) + "; exec " +
                          BERTH_BINARY + " " + args + "' >/dev/null 2>" + err_file;
  berth::testing::Run r;
  const int status = std::system(cmd.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  r.err.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

// A cluster file of `pods` pods, each with some labels: about 1 KB of YAML and several KB of
// parsed objects per pod.
std::string BigCluster(int pods) {
  std::string out =
      "apiVersion: v1\nkind: List\nitems:\n"
      "- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: '4', "
      "memory: 8Gi, pods: '110'}}}\n";
  for (int i = 0; i < pods; ++i) {
    out += "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p" + std::to_string(i) +
           "\n    namespace: default\n    labels:\n";
    for (int l = 0; l < 20; ++l) {
      out += "      label-" + std::to_string(l) + ": value-" + std::to_string(l) + "\n";
    }
    out += "  spec: {schedulerName: berth-scheduler, containers: [{name: a, image: x}]}\n";
  }
  return out;
}

TEST(Limits, OutOfMemoryIsOneLineAndExitTwo) {
#if defined(__SANITIZE_ADDRESS__) || defined(BERTH_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space; no RLIMIT_AS fits it";
#endif
  const std::string file = Write("big-cluster.yaml", BigCluster(60000));
  // 512 MiB of address space: the binary, its libraries and a small cluster fit; this one's
  // parsed objects do not.
  const berth::testing::Run small =
      BerthLimited(512 << 10, "simulate --cluster " + Write("small.yaml", BigCluster(10)));
  ASSERT_EQ(small.code, 0) << small.err;
  const berth::testing::Run r = BerthLimited(512 << 10, "simulate --cluster " + file);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "berth simulate: out of memory (while reading the cluster file " + file + ")\n");
}

std::string KubeconfigFor(const std::string& server) {
  return Write("never-answers.kubeconfig", R"(apiVersion: v1
kind: Config
current-context: a
clusters: [{name: c, cluster: {server: ")" + server +
                                               R"("}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: a, context: {cluster: c, user: u, namespace: default}}]
)");
}

double Timed(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(Limits, SimulateAgainstAServerThatNeverAnswersEndsAtTheRequestTimeout) {
  FakeHttpServer server([](const std::string&, int) { return Reply{{}, {}, false, true}; });
  const std::string kubeconfig = KubeconfigFor(server.url());
  berth::testing::Run r;
  const double took = Timed([&] {
    r = berth::testing::Berth("simulate --kubeconfig " + kubeconfig + " --request-timeout 2s");
  });
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("berth simulate: list Namespace (" + server.url() + "/api/v1/namespaces)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("deadline passed (--request-timeout 2s)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // one line
  EXPECT_GE(took, 1.5);
  EXPECT_LT(took, 30.0);  // was 6 attempts × 60 s
}

TEST(Limits, ExplainAgainstAServerThatNeverAnswersEndsAtTheRequestTimeout) {
  FakeHttpServer server([](const std::string&, int) { return Reply{{}, {}, false, true}; });
  const std::string kubeconfig = KubeconfigFor(server.url());
  berth::testing::Run r;
  const double took = Timed([&] {
    r = berth::testing::Berth("explain web --kubeconfig " + kubeconfig + " --request-timeout 2");
  });
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("deadline passed (--request-timeout 2)"), std::string::npos) << r.err;
  EXPECT_LT(took, 30.0);  // was about 7 minutes: the lease's retries, then the listing's
}

TEST(Limits, RequestTimeoutFlagIsCheckedAndNeedsAKubeconfig) {
  berth::testing::Run r = berth::testing::Berth("explain web --request-timeout 2d");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(
      r.err.find(
          "berth explain: --request-timeout \"2d\": Invalid timeout value. Timeout must be a "
          "single integer in seconds, or an integer followed by a corresponding time unit (e.g. "
          "1s | 2m | 3h)\n"),
      std::string::npos)
      << r.err;
  r = berth::testing::Berth("simulate --cluster x.yaml --request-timeout 2s");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--request-timeout needs --kubeconfig"), std::string::npos) << r.err;
}

}  // namespace
