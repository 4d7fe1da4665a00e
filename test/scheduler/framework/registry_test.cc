#include "scheduler/framework/registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace berth::framework {
namespace {

class Named : public Plugin {
 public:
  explicit Named(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
};

PluginFactory FactoryFor(std::string name) {
  return [name](const PluginContext&) -> Result<std::shared_ptr<Plugin>> {
    return std::shared_ptr<Plugin>(std::make_shared<Named>(name));
  };
}

TEST(RegistryTest, RegisterAndFind) {
  Registry r;
  ASSERT_TRUE(r.Register("NodePorts", FactoryFor("NodePorts")).ok());
  ASSERT_TRUE(r.Register("ImageLocality", FactoryFor("ImageLocality")).ok());

  const PluginFactory* f = r.Find("NodePorts");
  ASSERT_NE(f, nullptr);
  auto plugin = (*f)(PluginContext{});
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "NodePorts");

  EXPECT_EQ(r.Find("NodeLabel"), nullptr);
  EXPECT_EQ(r.Find("nodeports"), nullptr);  // names are case-sensitive
}

TEST(RegistryTest, DuplicateNameIsAnErrorAndKeepsTheFirstFactory) {
  Registry r;
  ASSERT_TRUE(r.Register("Coscheduling", FactoryFor("first")).ok());
  Ok second = r.Register("Coscheduling", FactoryFor("second"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error(), "plugin \"Coscheduling\" is already registered");
  auto plugin = (*r.Find("Coscheduling"))(PluginContext{});
  ASSERT_TRUE(plugin.ok());
  EXPECT_EQ((*plugin)->Name(), "first");
}

TEST(RegistryTest, NamesAreSorted) {
  Registry r;
  EXPECT_TRUE(r.Names().empty());
  for (const char* n : {"TaintToleration", "DefaultBinder", "NodeAffinity", "Coscheduling"}) {
    ASSERT_TRUE(r.Register(n, FactoryFor(n)).ok());
  }
  EXPECT_EQ(r.Names(), (std::vector<std::string>{"Coscheduling", "DefaultBinder", "NodeAffinity",
                                                 "TaintToleration"}));
}

TEST(RegistryTest, FactoryErrorsReachTheCaller) {
  Registry r;
  ASSERT_TRUE(r.Register("Broken", [](const PluginContext& ctx) -> Result<std::shared_ptr<Plugin>> {
                 return Error{ctx.args_path + ".foo: must be positive"};
               }).ok());
  PluginContext ctx;
  ctx.args_path = "profiles[0].pluginConfig[1].args";
  auto result = (*r.Find("Broken"))(ctx);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error(), "profiles[0].pluginConfig[1].args.foo: must be positive");
}

}  // namespace
}  // namespace berth::framework
