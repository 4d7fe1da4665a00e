#include "plugins/inter_pod_affinity/terms.h"

#include <gtest/gtest.h>

#include "test/plugins/inter_pod_affinity/test_env.h"

namespace berth::plugins::inter_pod_affinity::test {
namespace {

TEST(TopologyCountsTest, AddEraseMerge) {
  TopologyCounts c;
  EXPECT_TRUE(c.empty());
  c.Add("zone", "a", 2);
  c.Add("zone", "b", 1);
  c.Add("region", "r1", 1);
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c.Get("zone", "a"), 2);
  c.Add("zone", "b", -1);  // back to zero: removed, as upstream
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.Get("zone", "b"), 0);
  bool has_key = false;
  EXPECT_EQ(c.GetForNode("zone", {{"zone", "a"}}, &has_key), 2);
  EXPECT_TRUE(has_key);
  EXPECT_EQ(c.GetForNode("rack", {{"zone", "a"}}, &has_key), 0);
  EXPECT_FALSE(has_key);
  EXPECT_TRUE(c.AnyPositiveForNode({{"region", "r1"}}));
  EXPECT_FALSE(c.AnyPositiveForNode({{"region", "r2"}, {"zone", "b"}}));
  EXPECT_EQ(c.SumForNode({{"region", "r1"}, {"zone", "a"}}), 3);

  TopologyCounts other;
  other.Add("zone", "a", -2);
  c.Merge(other);
  EXPECT_EQ(c.size(), 1u);

  TopologyCounts scores(/*erase_zero=*/false);
  scores.Add("zone", "a", 5);
  scores.Add("zone", "a", -5);
  EXPECT_EQ(scores.size(), 1u) << "score maps keep zero entries, as upstream's scoreMap";
  EXPECT_EQ(scores.SumForNode({{"zone", "a"}}), 0);
}

TEST(IncomingTermTest, Namespaces) {
  api::Store<api::Namespace> store;
  for (const auto& [name, team] :
       std::vector<std::pair<std::string, std::string>>{{"a1", "a"}, {"a2", "a"}, {"b1", "b"}}) {
    auto ns = std::make_shared<api::Namespace>();
    ns->metadata.name = name;
    ns->metadata.labels["team"] = team;
    store.Upsert(ns);
  }
  const api::Pod owner = MakePod("p").Namespace("own").Obj();
  auto target = [](const std::string& ns) {
    return WithLabels(MakePod("t").Namespace(ns).Obj(), {{"app", "x"}});
  };
  api::PodAffinityTerm t = Term("app", kIn, {"x"}, "zone");

  IncomingTerm own = MakeIncomingTerm(owner, t, 0, store);
  EXPECT_EQ(own.namespaces, std::vector<std::string>{"own"});
  EXPECT_TRUE(own.Matches(target("own")));
  EXPECT_FALSE(own.Matches(target("a1")));

  t.namespaces = {"b1"};
  t.namespace_selector = api::LabelSelector{{{"team", "a"}}, {}};
  IncomingTerm merged = MakeIncomingTerm(owner, t, 0, store);
  EXPECT_EQ(merged.namespaces, (std::vector<std::string>{"a1", "a2", "b1"}));
  EXPECT_FALSE(merged.Matches(target("own")));

  t.namespaces.clear();
  t.namespace_selector = api::LabelSelector{};
  IncomingTerm all = MakeIncomingTerm(owner, t, 0, store);
  EXPECT_TRUE(all.all_namespaces);
  EXPECT_TRUE(all.Matches(target("anything")));

  api::PodAffinityTerm nil_selector;
  nil_selector.topology_key = "zone";
  EXPECT_FALSE(MakeIncomingTerm(owner, nil_selector, 0, store).Matches(target("own")))
      << "a term without labelSelector matches nothing";
}

TEST(ExistingTermTest, NamespaceSelectorUsesIncomingNamespaceLabels) {
  api::PodAffinityTerm t = Term("app", kIn, {"x"}, "zone");
  t.namespace_selector = api::LabelSelector{{{"team", "a"}}, {}};
  const api::Pod owner = MakePod("e").Namespace("elsewhere").Obj();
  const api::Pod incoming = WithLabels(MakePod("p").Namespace("a1").Obj(), {{"app", "x"}});
  EXPECT_TRUE(ExistingTermMatches(t, owner, incoming, {{"team", "a"}}));
  EXPECT_FALSE(ExistingTermMatches(t, owner, incoming, {{"team", "b"}}));
  EXPECT_FALSE(ExistingTermMatches(t, owner, incoming, {}));
}

}  // namespace
}  // namespace berth::plugins::inter_pod_affinity::test
