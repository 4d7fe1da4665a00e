#include "plugins/common/volume_hints.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace berth::plugins::common {
namespace {

using framework::EventObject;
using framework::QueueingHint;

TEST(VolumeHintsTest, QueueIfPodMountsClaim) {
  api::Pod pod = testing::MakePod("p").Obj();
  api::Volume v;
  v.name = "data";
  v.pvc_claim_name = "claim";
  pod.spec.volumes.push_back(v);
  api::PersistentVolumeClaim mounted;
  mounted.metadata.namespace_ = pod.metadata.namespace_;
  mounted.metadata.name = "claim";
  api::PersistentVolumeClaim other = mounted;
  other.metadata.name = "other";
  api::PersistentVolumeClaim elsewhere = mounted;
  elsewhere.metadata.namespace_ = "elsewhere";
  EXPECT_EQ(QueueIfPodMountsClaim(pod, EventObject{}, EventObject{&mounted}), QueueingHint::kQueue);
  EXPECT_EQ(QueueIfPodMountsClaim(pod, EventObject{}, EventObject{&other}),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(QueueIfPodMountsClaim(pod, EventObject{}, EventObject{&elsewhere}),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(QueueIfPodMountsClaim(pod, EventObject{}, EventObject{}), QueueingHint::kQueue)
      << "an event without a claim queues";
}

}  // namespace
}  // namespace berth::plugins::common
