// KubeApiWriter::Bind against a scripted KubeClient: how the API server's answers map to Status,
// in particular that a pod deleted, replaced or bound elsewhere comes back as Status::PodGone
// (the scheduler then forgets it quietly) and that nothing is written anywhere else.

#include "informers/writers/kube_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "test/testing/fake_kube_client.h"

namespace berth::writers {
namespace {

constexpr char kBinding[] = "/api/v1/namespaces/shop/pods/web/binding";
constexpr char kPod[] = "/api/v1/namespaces/shop/pods/web";

api::Pod Pod() {
  api::Pod p;
  p.metadata.namespace_ = "shop";
  p.metadata.name = "web";
  p.metadata.uid = "uid-1";
  return p;
}

std::string PodJson(const std::string& uid, const std::string& node) {
  return R"({"metadata":{"name":"web","namespace":"shop","uid":")" + uid +
         R"("},"spec":{"nodeName":")" + node + R"(","containers":[]}})";
}

TEST(KubeWriterBindTest, CreatedIsSuccess) {
  testing::FakeKubeClient kc;
  kc.PushResponse("POST", kBinding, 201, "{}");
  KubeApiWriter w(kc);
  auto s = w.Bind(Pod(), "n1");
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
}

TEST(KubeWriterBindTest, NotFoundIsPodGone) {
  testing::FakeKubeClient kc;
  kc.PushResponse("POST", kBinding, 404, R"({"message":"pods \"web\" not found"})");
  KubeApiWriter w(kc);
  auto s = w.Bind(Pod(), "n1");
  EXPECT_TRUE(s.IsError());
  EXPECT_TRUE(s.IsPodGone());
  EXPECT_EQ(s.Message(), "pod shop/web is gone: pods \"web\" not found");
}

TEST(KubeWriterBindTest, ConflictAnswersByReadingThePodBack) {
  struct Case {
    std::string name;
    int get_status;
    std::string get_body;
    bool success;
    bool gone;
  };
  const Case cases[] = {
      {"already bound here (a replayed request)", 200, PodJson("uid-1", "n1"), true, false},
      {"bound elsewhere", 200, PodJson("uid-1", "n2"), false, true},
      {"replaced by a pod of the same name", 200, PodJson("uid-2", ""), false, true},
      {"deleted meanwhile", 404, "{}", false, true},
      {"still unbound: an ordinary error", 200, PodJson("uid-1", ""), false, false},
      {"cannot read it back: an ordinary error", 500, "{}", false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    testing::FakeKubeClient kc;
    kc.PushResponse("POST", kBinding, 409, R"({"message":"conflict"})");
    kc.PushResponse("GET", kPod, c.get_status, c.get_body);
    KubeApiWriter w(kc);
    auto s = w.Bind(Pod(), "n1");
    EXPECT_EQ(s.IsSuccess(), c.success) << s.Message();
    EXPECT_EQ(s.IsPodGone(), c.gone) << s.Message();
    if (!c.success) EXPECT_EQ(s.Message(), "binding rejected (409): conflict");
  }
}

}  // namespace
}  // namespace berth::writers
