// Differential check of the structured allocator against upstream's: reads scenarios written by
// test/dra/allocgen (JSON lines: the cluster, upstream's allocation or error) on stdin, allocates
// the same claims with berth's allocator and berth's CEL, and compares the outcome: the same
// error text, the same "nothing fits", or the same devices, configuration and node selector per
// claim. Prints each divergence and a closing "N passed, M failed" line; exits 1 on any
// divergence.

#include <iostream>
#include <map>
#include <string>

#include "api/decode.h"
#include "api/encode_resource.h"
#include "api/json/parse.h"
#include "plugins/dynamic_resources/cel_selectors.h"
#include "plugins/dynamic_resources/structured/allocator.h"

namespace berth::plugins::dynamic_resources {
namespace {

using structured::Allocator;

// Decodes `list` (a JSON array or null) with `decode`.
template <typename T, typename F>
Result<std::vector<T>> DecodeList(const api::Value* list, F decode) {
  std::vector<T> out;
  if (list == nullptr || list->IsNull()) return out;
  for (const auto& item : list->AsArray()) {
    BERTH_ASSIGN_OR_RETURN(T v, decode(item));
    out.push_back(std::move(v));
  }
  return out;
}

// An AllocationResult, decoded through the claim decoder (the only place it is decoded).
Result<api::AllocationResult> DecodeAllocation(const api::Value& v) {
  api::Value claim = api::Value::MakeObject();
  api::Value meta = api::Value::MakeObject();
  meta.Set("name", api::Value::String("expected"));
  claim.Set("metadata", std::move(meta));
  api::Value status = api::Value::MakeObject();
  status.Set("allocation", v);
  claim.Set("status", std::move(status));
  BERTH_ASSIGN_OR_RETURN(api::ResourceClaim c, api::DecodeResourceClaim(claim));
  return *c.status.allocation;
}

// shareIDs are random upstream: only whether a result has one is compared.
std::string Canonical(api::AllocationResult r) {
  for (auto& d : r.devices.results) {
    if (d.share_id) d.share_id = "<share>";
  }
  return api::json::ToJson(api::EncodeAllocationResult(r));
}

structured::DeviceId ParseDeviceId(const std::string& s) {
  const size_t a = s.find('/'), b = s.find('/', a + 1);
  return structured::DeviceId{s.substr(0, a), s.substr(a + 1, b - a - 1), s.substr(b + 1)};
}

// Empty when berth agrees; otherwise what differs.
std::string Compare(const api::Value& sc) {
  auto node = api::DecodeNode(*sc.Find("node"));
  if (!node.ok()) return "node: " + node.error();
  auto slices = DecodeList<api::ResourceSlice>(sc.Find("slices"), api::DecodeResourceSlice);
  if (!slices.ok()) return "slices: " + slices.error();
  auto classes = DecodeList<api::DeviceClass>(sc.Find("classes"), api::DecodeDeviceClass);
  if (!classes.ok()) return "classes: " + classes.error();
  auto claims = DecodeList<api::ResourceClaim>(sc.Find("claims"), api::DecodeResourceClaim);
  if (!claims.ok()) return "claims: " + claims.error();
  structured::AllocatedState allocated;
  if (const auto* list = sc.Find("allocated"); list != nullptr && !list->IsNull()) {
    for (const auto& id : list->AsArray()) {
      allocated.allocated_devices.insert(ParseDeviceId(id.AsString()));
    }
  }
  // Shares of devices with allowMultipleAllocations, as the plugin gathers them.
  if (const auto* list = sc.Find("allocatedShares"); list != nullptr && !list->IsNull()) {
    for (const auto& share : list->AsArray()) {
      const structured::DeviceId id = ParseDeviceId(share.Find("device")->AsString());
      allocated.allocated_shared_device_ids.insert(
          structured::SharedDeviceId{id, share.Find("shareID")->AsString()});
      const api::Value* consumed = share.Find("consumedCapacity");
      if (consumed == nullptr || consumed->IsNull()) continue;
      structured::ConsumedCapacity amounts;
      for (const auto& [name, q] : consumed->AsObject()) {
        auto parsed = api::Quantity::Parse(q.AsString());
        if (!parsed.ok()) return "allocatedShares: " + parsed.error();
        amounts[name] = *parsed;
      }
      structured::AddCapacity(allocated.aggregated_capacity[id], amounts);
    }
  }
  structured::Features features;
  if (const auto* f = sc.Find("fractionalCapacityRange"); f != nullptr && !f->IsNull()) {
    features.fractional_capacity_range = f->AsBool();
  }
  std::map<std::string, const api::DeviceClass*> by_name;
  for (const auto& c : *classes) by_name[c.metadata.name] = &c;
  std::vector<const api::ResourceSlice*> slice_ptrs;
  for (const auto& s : *slices) slice_ptrs.push_back(&s);
  std::vector<const api::ResourceClaim*> claim_ptrs;
  for (const auto& c : *claims) claim_ptrs.push_back(&c);
  CelSelectors cel;
  Allocator allocator(
      features, allocated,
      [&](const std::string& name) -> const api::DeviceClass* {
        auto it = by_name.find(name);
        return it == by_name.end() ? nullptr : it->second;
      },
      slice_ptrs, &cel);
  auto got = allocator.Allocate(*node, claim_ptrs);

  const api::Value* error = sc.Find("error");
  const bool failed_on_node =
      sc.Find("failedOnNode") != nullptr && sc.Find("failedOnNode")->AsBool();
  if (error != nullptr && !error->AsString().empty()) {
    const std::string& want = error->AsString();
    if (failed_on_node) {
      if (!got.ok())
        return "want failed-on-node \"" + want + "\", got error \"" + got.error() + "\"";
      if (got->failed_on_node != want) {
        return "want failed-on-node \"" + want + "\", got " +
               (got->allocated ? "an allocation" : got->failed_on_node.value_or("nothing"));
      }
      return {};
    }
    if (got.ok()) {
      return "want error \"" + want + "\", got " +
             (got->allocated ? "an allocation" : "no allocation");
    }
    if (got.error() != want)
      return "want error \"" + want + "\"\n      got error \"" + got.error() + "\"";
    return {};
  }
  if (!got.ok()) return "want success, got error \"" + got.error() + "\"";
  const api::Value* results = sc.Find("results");
  if (results == nullptr || results->IsNull()) {
    if (got->allocated) return "want no allocation, got one: " + Canonical(got->results.at(0));
    if (got->failed_on_node) return "want no allocation, got failed-on-node";
    return {};
  }
  if (!got->allocated) return "want an allocation, got none";
  const auto& want = results->AsArray();
  if (want.size() != got->results.size()) return "result count differs";
  for (size_t i = 0; i < want.size(); ++i) {
    auto expected = DecodeAllocation(want[i]);
    if (!expected.ok()) return "expected result " + std::to_string(i) + ": " + expected.error();
    const std::string w = Canonical(*expected), g = Canonical(got->results[i]);
    if (w != g) return "claim " + std::to_string(i) + ":\n      want " + w + "\n      got  " + g;
  }
  return {};
}

}  // namespace
}  // namespace berth::plugins::dynamic_resources

int main() {
  int passed = 0, failed = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    auto sc = berth::api::json::ParseJson(line);
    if (!sc.ok()) {
      std::cerr << "bad scenario line: " << sc.error() << "\n";
      ++failed;
      continue;
    }
    const std::string diff = berth::plugins::dynamic_resources::Compare(*sc);
    if (diff.empty()) {
      ++passed;
    } else {
      ++failed;
      const auto* seed = sc->Find("seed");
      std::cout << "seed " << (seed ? std::to_string(seed->AsInt()) : "?") << ": " << diff << "\n";
    }
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 && passed > 0 ? 0 : 1;
}
