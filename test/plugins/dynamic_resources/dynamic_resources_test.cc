#include "plugins/dynamic_resources/dynamic_resources.h"

#include <gtest/gtest.h>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "test/testing/builders.h"

namespace berth::plugins::dynamic_resources {
namespace {

using testing::MakeNode;
using testing::MakePod;

std::shared_ptr<framework::Plugin> MakePlugin() {
  auto p = New(framework::PluginContext{});
  EXPECT_TRUE(p.ok());
  return *p;
}

// A pod without claims: Filter is skipped, every node scores 0, and PostFilter leaves the decision
// to the next PostFilter plugin (Unschedulable without a reason), as upstream.
TEST(DynamicResourcesTest, PodWithoutClaims) {
  auto plugin = MakePlugin();
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Obj()));
  framework::CycleState state;
  framework::PreFilterResult result;
  auto* pre = dynamic_cast<framework::PreFilterPlugin*>(plugin.get());
  EXPECT_EQ(pre->PreFilter(state, *pod, {}, &result).code(), framework::Code::kSkip);
  framework::NodeInfo node(std::make_shared<const api::Node>(MakeNode("n1").Obj()));
  int64_t score = -1;
  EXPECT_TRUE(dynamic_cast<framework::ScorePlugin*>(plugin.get())
                  ->Score(state, *pod, node, &score)
                  .IsSuccess());
  EXPECT_EQ(score, 0);
  framework::NodeToStatus statuses;
  framework::PostFilterResult pf;
  framework::Status st = dynamic_cast<framework::PostFilterPlugin*>(plugin.get())
                             ->PostFilter(state, *pod, statuses, &pf);
  EXPECT_EQ(st.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "");
}

// When an earlier PreFilter plugin ended the cycle, upstream's PostFilter fails reading its
// state: the FailedScheduling message ends in "not found".
TEST(DynamicResourcesTest, PostFilterWithoutPreFilterState) {
  auto plugin = MakePlugin();
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(MakePod("p").Obj()));
  framework::CycleState state;
  framework::NodeToStatus statuses;
  framework::PostFilterResult pf;
  framework::Status st = dynamic_cast<framework::PostFilterPlugin*>(plugin.get())
                             ->PostFilter(state, *pod, statuses, &pf);
  EXPECT_EQ(st.code(), framework::Code::kError);
  EXPECT_EQ(st.Message(), "not found");
}

// berth does not allocate devices yet: a pod naming claims is refused, never bound.
TEST(DynamicResourcesTest, PodWithClaimsIsRefused) {
  auto plugin = MakePlugin();
  api::Pod p = MakePod("p").Obj();
  p.spec.resource_claims.push_back({"gpu", "my-claim", ""});
  auto pod = framework::MakePodInfo(std::make_shared<api::Pod>(p));
  framework::CycleState state;
  framework::PreFilterResult result;
  framework::Status st =
      dynamic_cast<framework::PreFilterPlugin*>(plugin.get())->PreFilter(state, *pod, {}, &result);
  EXPECT_EQ(st.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.Message(),
            "berth does not allocate resource claims yet: pod uses spec.resourceClaims");
}

}  // namespace
}  // namespace berth::plugins::dynamic_resources
