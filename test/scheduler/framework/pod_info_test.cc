#include "scheduler/framework/pod_info.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace berth::framework {
namespace {

using testing::MakePod;

TEST(PodInfoTest, PrecomputesKeyAndRequests) {
  PodInfoPtr info = MakePod("web").Namespace("shop").Req({{"cpu", "250m"}}).Info();
  EXPECT_EQ(info->key, "shop/web");
  EXPECT_EQ(info->Namespace(), "shop");
  EXPECT_EQ(info->Name(), "web");
  EXPECT_EQ(info->Uid(), "uid-web");
  EXPECT_EQ(info->requests.milli_cpu, 250);
  EXPECT_EQ(info->requests.memory, 0);
  EXPECT_EQ(info->non_zero_cpu, 250);
  EXPECT_EQ(info->non_zero_memory, kDefaultMemoryRequest);
}

TEST(PodInfoTest, HostPortsDefaultToTcpOnAllAddresses) {
  MakePod b("p");
  b.HostPort(80).HostPort(53, "UDP", "10.0.0.1");
  // A container port without hostPort does not occupy a node port.
  api::ContainerPort internal;
  internal.container_port = 8080;
  b.Mutable().spec.containers.back().ports.push_back(internal);
  // Empty protocol means TCP, as the API server defaults it.
  api::ContainerPort no_proto;
  no_proto.host_port = 9090;
  no_proto.container_port = 9090;
  no_proto.protocol = "";
  b.Mutable().spec.containers.back().ports.push_back(no_proto);
  // Init containers' ports are not counted (as upstream's NodePorts).
  b.InitReq({});
  api::ContainerPort init_port;
  init_port.host_port = 7000;
  init_port.container_port = 7000;
  b.Mutable().spec.init_containers.back().ports.push_back(init_port);

  PodInfoPtr info = b.Info();
  ASSERT_EQ(info->host_ports.size(), 3u);
  EXPECT_EQ(info->host_ports[0], (HostPort{"0.0.0.0", "TCP", 80}));
  EXPECT_EQ(info->host_ports[1], (HostPort{"10.0.0.1", "UDP", 53}));
  EXPECT_EQ(info->host_ports[2], (HostPort{"0.0.0.0", "TCP", 9090}));
}

TEST(PodInfoTest, AffinityFlags) {
  api::PodAffinityTerm term;
  term.topology_key = "kubernetes.io/hostname";

  struct Case {
    const char* name;
    std::optional<api::Affinity> affinity;
    bool has_affinity;
    bool has_required_anti;
  };
  api::Affinity node_only;
  node_only.node_affinity = api::NodeAffinity{};
  api::Affinity required_affinity;
  required_affinity.pod_affinity = api::PodAffinity{{term}, {}};
  api::Affinity preferred_anti;
  preferred_anti.pod_anti_affinity = api::PodAffinity{{}, {api::WeightedPodAffinityTerm{10, term}}};
  api::Affinity required_anti;
  required_anti.pod_anti_affinity = api::PodAffinity{{term}, {}};

  const std::vector<Case> cases = {
      {"none", std::nullopt, false, false},
      {"node affinity only", node_only, false, false},
      {"required pod affinity", required_affinity, true, false},
      {"preferred anti-affinity", preferred_anti, true, false},
      {"required anti-affinity", required_anti, true, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    MakePod b("p");
    b.Mutable().spec.affinity = c.affinity;
    PodInfoPtr info = b.Info();
    EXPECT_EQ(info->has_affinity, c.has_affinity);
    EXPECT_EQ(info->has_required_anti_affinity, c.has_required_anti);
  }
}

}  // namespace
}  // namespace berth::framework
