#include "plugins/default_binder/default_binder.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace berth::plugins::default_binder {
namespace {

using testing::MakePod;

class FailingWriter : public framework::ApiWriter {
 public:
  framework::Status Bind(const api::Pod&, const std::string&) override {
    return framework::Status::Error("binding rejected: 409 Conflict");
  }
};

// A handle whose writer fails, to check the status is passed through.
class FailingHandle : public testing::FakeHandle {
 public:
  framework::ApiWriter& api_writer() override { return failing_; }

 private:
  FailingWriter failing_;
};

TEST(DefaultBinderTest, BindsThroughTheApiWriter) {
  testing::FakeHandle handle;
  framework::PluginContext ctx;
  ctx.handle = &handle;
  auto p = New(ctx);
  ASSERT_TRUE(p.ok()) << p.error();
  auto binder = std::dynamic_pointer_cast<framework::BindPlugin>(*p);
  ASSERT_NE(binder, nullptr);
  EXPECT_EQ(binder->Name(), "DefaultBinder");
  framework::CycleState state;
  auto pod = MakePod("foo").Namespace("ns").Info();
  EXPECT_TRUE(binder->Bind(state, *pod, "foohost.kubernetes.mydomain.com").IsSuccess());
  ASSERT_EQ(handle.writer().bindings.size(), 1u);
  EXPECT_EQ(handle.writer().bindings[0].first, "ns/foo");
  EXPECT_EQ(handle.writer().bindings[0].second, "foohost.kubernetes.mydomain.com");
}

TEST(DefaultBinderTest, ReturnsTheWriterError) {
  FailingHandle handle;
  framework::PluginContext ctx;
  ctx.handle = &handle;
  auto p = New(ctx);
  ASSERT_TRUE(p.ok());
  auto binder = std::dynamic_pointer_cast<framework::BindPlugin>(*p);
  framework::CycleState state;
  auto st = binder->Bind(state, *MakePod("foo").Info(), "n1");
  EXPECT_TRUE(st.IsError());
  EXPECT_EQ(st.Message(), "binding rejected: 409 Conflict");
}

TEST(DefaultBinderTest, NeedsAHandle) {
  auto p = New(framework::PluginContext{});
  EXPECT_FALSE(p.ok());
}

}  // namespace
}  // namespace berth::plugins::default_binder
