#include "plugins/node_ports/node_ports.h"

#include <gtest/gtest.h>

#include <sstream>

#include "scheduler/framework/explain.h"
#include "test/testing/builders.h"

namespace berth::plugins::node_ports {
namespace {

using framework::QueueingHint;
using testing::MakeNode;
using testing::MakePod;

// "PROTO/IP/PORT" specs, as upstream's newPod helper.
api::Pod NewPod(const std::string& name, std::vector<std::string> specs) {
  MakePod b(name);
  b.Node("m1");
  for (const auto& s : specs) {
    std::stringstream ss(s);
    std::string proto, ip, port;
    std::getline(ss, proto, '/');
    std::getline(ss, ip, '/');
    std::getline(ss, port, '/');
    b.HostPort(std::stoi(port), proto, ip);
  }
  return b.Obj();
}

std::shared_ptr<framework::Plugin> MakePlugin() {
  auto p = New(framework::PluginContext{});
  EXPECT_TRUE(p.ok());
  return *p;
}

// Upstream's TestNodePorts cases.
TEST(NodePortsTest, PreFilterAndFilter) {
  const auto kU = framework::Code::kUnschedulable;
  const auto kOK = framework::Code::kSuccess;
  struct Case {
    const char* name;
    api::Pod pod;
    std::vector<api::Pod> existing;
    framework::Code want_filter;
  };
  const std::vector<Case> cases = {
      {"other port",
       NewPod("p", {"UDP/127.0.0.1/8080"}),
       {NewPod("e", {"UDP/127.0.0.1/9090"})},
       kOK},
      {"same udp port",
       NewPod("p", {"UDP/127.0.0.1/8080"}),
       {NewPod("e", {"UDP/127.0.0.1/8080"})},
       kU},
      {"same tcp port",
       NewPod("p", {"TCP/127.0.0.1/8080"}),
       {NewPod("e", {"TCP/127.0.0.1/8080"})},
       kU},
      {"different host ip",
       NewPod("p", {"TCP/127.0.0.1/8080"}),
       {NewPod("e", {"TCP/127.0.0.2/8080"})},
       kOK},
      {"different protocol",
       NewPod("p", {"UDP/127.0.0.1/8080"}),
       {NewPod("e", {"TCP/127.0.0.1/8080"})},
       kOK},
      {"second udp port conflict",
       NewPod("p", {"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"}),
       {NewPod("e", {"UDP/127.0.0.1/8080"})},
       kU},
      {"first tcp port conflict",
       NewPod("p", {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"}),
       {NewPod("e", {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"})},
       kU},
      {"first tcp port conflict due to 0.0.0.0 hostIP",
       NewPod("p", {"TCP/0.0.0.0/8001"}),
       {NewPod("e", {"TCP/127.0.0.1/8001"})},
       kU},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       NewPod("p", {"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"}),
       {NewPod("e", {"TCP/127.0.0.1/8001"})},
       kU},
      {"second tcp port conflict to 0.0.0.0 hostIP",
       NewPod("p", {"TCP/127.0.0.1/8001"}),
       {NewPod("e", {"TCP/0.0.0.0/8001"})},
       kU},
      {"second different protocol",
       NewPod("p", {"UDP/127.0.0.1/8001"}),
       {NewPod("e", {"TCP/0.0.0.0/8001"})},
       kOK},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP",
       NewPod("p", {"UDP/127.0.0.1/8001"}),
       {NewPod("e", {"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"})},
       kU},
      // Berth addition: an unset hostIP means 0.0.0.0.
      {"empty hostIP conflicts with any IP",
       NewPod("p", {"TCP//8001"}),
       {NewPod("e", {"TCP/127.0.0.1/8001"})},
       kU},
  };
  auto plugin = MakePlugin();
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
  ASSERT_NE(pre, nullptr);
  ASSERT_NE(filter, nullptr);
  for (const auto& c : cases) {
    framework::NodeInfo ni(MakeNode("m1").Ptr());
    for (const auto& e : c.existing)
      ni.AddPod(framework::MakePodInfo(std::make_shared<api::Pod>(e)));
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::CycleState state;
    framework::PreFilterResult result;
    auto pst = pre->PreFilter(state, *pod, {}, &result);
    ASSERT_TRUE(pst.IsSuccess()) << c.name << ": " << pst.Message();
    EXPECT_TRUE(result.AllNodes()) << c.name;
    auto st = filter->Filter(state, *pod, ni);
    EXPECT_EQ(st.code(), c.want_filter) << c.name;
    if (c.want_filter == kU) {
      EXPECT_EQ(st.Message(), "node(s) didn't have free ports for the requested pod ports");
    }
  }
}

TEST(NodePortsTest, PreFilterSkipsPodWithoutHostPorts) {
  auto plugin = MakePlugin();
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
  framework::CycleState state;
  framework::PreFilterResult result;
  auto no_ports = MakePod("p").Req({{"cpu", "1"}}).Info();
  EXPECT_TRUE(pre->PreFilter(state, *no_ports, {}, &result).IsSkip());
  // A container port without a hostPort asks for nothing on the node.
  api::Pod container_only = MakePod("q").Req({}).Obj();
  api::ContainerPort cp;
  cp.container_port = 80;
  container_only.spec.containers[0].ports.push_back(cp);
  auto info = framework::MakePodInfo(std::make_shared<api::Pod>(container_only));
  EXPECT_TRUE(pre->PreFilter(state, *info, {}, &result).IsSkip());
}

// The FilterExplainer: each wanted port in use, and the pod holding it.
TEST(NodePortsTest, ExplainFilter) {
  struct Case {
    const char* name;
    api::Pod pod;
    std::vector<api::Pod> existing;
    std::string want_need;
  };
  api::Pod web = NewPod("web-2", {"TCP//8080"});
  web.metadata.namespace_ = "shop";
  const std::vector<Case> cases = {
      {"one port",
       NewPod("p", {"TCP//8080"}),
       {NewPod("other", {"TCP//9090"}), web},
       "host port 8080/TCP is taken by pod shop/web-2"},
      {"a port bound to one address, taken through 0.0.0.0",
       NewPod("p", {"UDP/127.0.0.1/53", "TCP//8080"}),
       {NewPod("dns", {"UDP/0.0.0.0/53"})},
       "host port 127.0.0.1:53/UDP is taken by pod default/dns"},
      {"several ports, several holders",
       NewPod("p", {"TCP//8080", "TCP//8443"}),
       {web, NewPod("tls", {"TCP/10.0.0.1/8443"})},
       "host port 8080/TCP is taken by pod shop/web-2; host port 8443/TCP is taken by pod "
       "default/tls"},
  };
  auto plugin = MakePlugin();
  const auto& pre = dynamic_cast<const framework::PreFilterPlugin&>(*plugin);
  const auto& filter = dynamic_cast<const framework::FilterPlugin&>(*plugin);
  const auto* explainer = dynamic_cast<const framework::FilterExplainer*>(plugin.get());
  ASSERT_NE(explainer, nullptr);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    framework::NodeInfo ni(MakeNode("m1").Ptr());
    for (const auto& e : c.existing) {
      ni.AddPod(framework::MakePodInfo(std::make_shared<api::Pod>(e)));
    }
    auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(c.pod));
    framework::CycleState state;
    framework::PreFilterResult result;
    ASSERT_TRUE(pre.PreFilter(state, *pod, {}, &result).IsSuccess());
    const framework::Status st = filter.Filter(state, *pod, ni);
    ASSERT_TRUE(st.IsRejected());
    std::vector<framework::FilterNeed> full, gap_only;
    explainer->ExplainFilter(state, *pod, ni, st, framework::ExplainDetail::kFull, &full);
    explainer->ExplainFilter(state, *pod, ni, st, framework::ExplainDetail::kGapOnly, &gap_only);
    ASSERT_EQ(full.size(), 1u);
    EXPECT_EQ(full[0].reason, kErrReason);
    EXPECT_EQ(full[0].need, c.want_need);
    EXPECT_DOUBLE_EQ(full[0].gap, 0.5);
    ASSERT_EQ(gap_only.size(), 1u);
    EXPECT_EQ(gap_only[0].need, "");
    EXPECT_DOUBLE_EQ(gap_only[0].gap, 0.5);
  }
}

// Upstream's TestPreFilterDisabled.
TEST(NodePortsTest, FilterWithoutPreFilterIsError) {
  auto plugin = MakePlugin();
  auto* filter = dynamic_cast<framework::FilterPlugin*>(plugin.get());
  framework::CycleState state;
  framework::NodeInfo ni(MakeNode("n").Ptr());
  auto st = filter->Filter(state, *MakePod("p").Info(), ni);
  EXPECT_TRUE(st.IsError());
}

TEST(NodePortsTest, WantedHostPorts) {
  api::Pod pod = MakePod("p").HostPort(8001).HostPort(8002, "UDP", "10.0.0.1").Obj();
  api::ContainerPort no_host;
  no_host.container_port = 8005;
  pod.spec.containers.back().ports.push_back(no_host);
  auto ports = WantedHostPorts(pod);
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0], (framework::HostPort{"0.0.0.0", "TCP", 8001}));
  EXPECT_EQ(ports[1], (framework::HostPort{"10.0.0.1", "UDP", 8002}));
}

// Upstream's Test_isSchedulableAfterPodDeleted cases.
TEST(NodePortsTest, PodDeletedHint) {
  auto ext = std::dynamic_pointer_cast<framework::EnqueueExtensions>(MakePlugin());
  auto events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[0].event.action_type, framework::action::kDelete);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[1].event.action_type, framework::action::kAdd);
  EXPECT_FALSE(events[1].hint);
  const auto& hint = events[0].hint;
  api::Pod pod = MakePod("p").HostPort(8080).Obj();
  api::Node not_a_pod = MakeNode("n").Obj();
  api::Pod unscheduled = MakePod("d").Obj();
  api::Pod no_host_port = MakePod("d").Node("fake-node").Obj();
  api::Pod unrelated = MakePod("d").Node("fake-node").HostPort(8081).Obj();
  api::Pod released = MakePod("d").Node("fake-node").HostPort(8080).Obj();
  api::Pod nominated = MakePod("d").HostPort(8080).Obj();
  nominated.status.nominated_node_name = "fake-node";
  struct Case {
    const char* name;
    framework::EventObject old_obj;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"backoff-wrong-old-object", &not_a_pod, QueueingHint::kQueue},
      {"skip-queue-on-unscheduled", &unscheduled, QueueingHint::kQueueSkip},
      {"skip-queue-on-non-hostport", &no_host_port, QueueingHint::kQueueSkip},
      {"skip-queue-on-unrelated-hostport", &unrelated, QueueingHint::kQueueSkip},
      {"queue-on-released-hostport", &released, QueueingHint::kQueue},
      {"queue-on-released-hostport of a nominated pod", &nominated, QueueingHint::kQueue},
  };
  for (const auto& c : cases) EXPECT_EQ(hint(pod, c.old_obj, {}), c.want) << c.name;
}

}  // namespace
}  // namespace berth::plugins::node_ports
