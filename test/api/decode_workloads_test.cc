#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "api/decode.h"
#include "api/json/parse.h"

namespace berth::api {
namespace {

Value Yaml(const std::string& text) {
  auto docs = json::ParseYamlDocuments(text);
  EXPECT_TRUE(docs.ok()) << docs.error();
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << "want exactly one document";
    return Value();
  }
  return (*docs)[0];
}

TEST(DecodeWorkloadsTest, ReplicationControllerSelectorIsAPlainMap) {
  auto obj = DecodeObject(Yaml(R"(
apiVersion: v1
kind: ReplicationController
metadata: {name: rc, namespace: shop}
spec:
  replicas: 3
  selector: {app: web}
  template: {metadata: {labels: {app: web}}}
)"));
  ASSERT_TRUE(obj.ok()) << obj.error();
  const auto& rc = std::get<ReplicationController>(*obj);
  EXPECT_EQ(rc.metadata.name, "rc");
  EXPECT_EQ(rc.metadata.namespace_, "shop");
  EXPECT_EQ(rc.selector, (Labels{{"app", "web"}}));
}

TEST(DecodeWorkloadsTest, ReplicaSetAndStatefulSetSelectors) {
  auto rs = DecodeObject(Yaml(R"(
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8f, namespace: shop}
spec:
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: In, values: [front]}]
)"));
  ASSERT_TRUE(rs.ok()) << rs.error();
  const auto& r = std::get<ReplicaSet>(*rs);
  ASSERT_TRUE(r.selector.has_value());
  EXPECT_EQ(r.selector->match_labels, (Labels{{"app", "web"}}));
  ASSERT_EQ(r.selector->match_expressions.size(), 1u);
  EXPECT_EQ(r.selector->match_expressions[0].key, "tier");

  auto ss = DecodeObject(Yaml("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n"));
  ASSERT_TRUE(ss.ok()) << ss.error();
  EXPECT_FALSE(std::get<StatefulSet>(*ss).selector.has_value());
}

TEST(DecodeWorkloadsTest, ErrorsNameTheField) {
  auto rc = DecodeObject(
      Yaml("apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc, namespace: a}\n"
           "spec: {selector: {app: [web]}}\n"));
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.error(),
            "ReplicationController a/rc: spec.selector.app: expected string, got array");
  auto rs = DecodeObject(
      Yaml("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: a}\n"
           "spec: {selector: {matchLabels: [app]}}\n"));
  ASSERT_FALSE(rs.ok());
  EXPECT_EQ(rs.error(), "ReplicaSet a/rs: spec.selector.matchLabels: expected object, got array");
  auto ss = DecodeObject(
      Yaml("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: ss, namespace: a}\n"
           "spec: {selector: {matchExpressions: [{key: k, operator: Gt, values: [x]}]}}\n"));
  ASSERT_FALSE(ss.ok());
  EXPECT_NE(ss.error().find("StatefulSet a/ss: spec.selector.matchExpressions[0].operator"),
            std::string::npos)
      << ss.error();
}

TEST(DecodeWorkloadsTest, OnlyAppsV1ReplicaSetsAndStatefulSets) {
  auto old = DecodeObject(
      Yaml("apiVersion: extensions/v1beta1\nkind: ReplicaSet\nmetadata: {name: rs}\n"));
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.code(), ErrorCode::kNotFound);
  EXPECT_EQ(old.error(),
            "unsupported kind \"ReplicaSet\" in apiVersion \"extensions/v1beta1\" (want apps/v1)");
}

}  // namespace
}  // namespace berth::api
