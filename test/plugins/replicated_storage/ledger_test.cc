#include "plugins/replicated_storage/ledger.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace berth::plugins::replicated_storage {
namespace {

using std::chrono::seconds;

const framework::TimePoint kT0{seconds(1000)};
const PoolKey kThick{"vg-1", ""};
const PoolKey kThin{"vg-1", "tp0"};

bool Never(const SpaceHold&) { return false; }
bool NotBound(const std::string&, const std::string&, const std::string&) { return false; }

TEST(ReservationLedgerTest, HeldBytesSumPerPoolExceptTheAskingPod) {
  ReservationLedger ledger(seconds(60));
  ledger.Hold("uid-a", "ns/a", {{"ns/a1", "n1", kThick, 10}, {"ns/a2", "n1", kThick, 5}}, kT0);
  ledger.Hold("uid-b", "ns/b", {{"ns/b1", "n1", kThin, 7}}, kT0);
  auto all = ledger.HeldBytes("");
  EXPECT_EQ(all[kThick], 15);
  EXPECT_EQ(all[kThin], 7);
  auto for_a = ledger.HeldBytes("uid-a");
  EXPECT_EQ(for_a.count(kThick), 0u);
  EXPECT_EQ(for_a[kThin], 7);
  // Holding again replaces; an empty hold forgets the pod.
  ledger.Hold("uid-a", "ns/a", {{"ns/a1", "n1", kThick, 1}}, kT0);
  EXPECT_EQ(ledger.HeldBytes("")[kThick], 1);
  ledger.Hold("uid-a", "ns/a", {}, kT0);
  EXPECT_EQ(ledger.Size(), 1u);
  ledger.Release("uid-b");
  ledger.Release("uid-b");  // idempotent
  EXPECT_EQ(ledger.Size(), 0u);
}

TEST(ReservationLedgerTest, PruneDropsLandedHoldsAndExpiredUnboundPods) {
  ReservationLedger ledger(seconds(60));
  ledger.Hold("uid-a", "ns/a", {{"ns/a1", "n1", kThick, 10}, {"ns/a2", "n1", kThin, 5}}, kT0);
  ledger.Hold("uid-b", "ns/b", {{"ns/b1", "n2", kThick, 3}}, kT0);
  ledger.Prune(
      kT0 + seconds(1), [](const SpaceHold& h) { return h.claim_key == "ns/a1"; }, NotBound);
  EXPECT_EQ(ledger.HeldBytes("")[kThick], 3);
  EXPECT_EQ(ledger.HeldBytes("")[kThin], 5);
  // At the deadline: b is bound to n2 and keeps its hold, a is not and loses it.
  ledger.Prune(kT0 + seconds(60), Never,
               [](const std::string& uid, const std::string& key, const std::string& node) {
                 return uid == "uid-b" && key == "ns/b" && node == "n2";
               });
  EXPECT_EQ(ledger.Size(), 1u);
  EXPECT_EQ(ledger.HeldBytes("")[kThick], 3);
  EXPECT_EQ(ledger.HeldBytes("").count(kThin), 0u);
}

}  // namespace
}  // namespace berth::plugins::replicated_storage
