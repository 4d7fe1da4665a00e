// Label and node selectors: YAML -> DecodeLabelSelector / DecodeNodeSelector / DecodeNodeAffinity,
// then matched against a few label sets. Input: a YAML map, e.g.
//   {labelSelector: {matchExpressions: [...]}, nodeSelector: {nodeSelectorTerms: [...]},
//    labels: {zone: a}}
#include "api/decode.h"
#include "api/json/parse.h"
#include "api/selector.h"
#include "test/fuzz/fuzz_common.h"

using namespace berth::api;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto docs = json::ParseYamlDocuments(berth::fuzz::AsView(data, size));
  if (!docs.ok() || docs->empty() || !docs->front().IsObject()) return 0;
  const Value& doc = docs->front();
  Labels labels = {{"zone", "a"}, {"app", "web"}, {"tier", "1"}};
  if (const Value* l = doc.Find("labels"); l && l->IsObject()) {
    for (const auto& [k, v] : l->AsObject()) {
      if (v.IsString()) labels[k] = v.AsString();
    }
  }
  if (const Value* s = doc.Find("labelSelector")) {
    auto sel = DecodeLabelSelector(*s, "labelSelector");
    if (sel.ok()) {
      (void)Matches(*sel, labels);
      (void)Matches(*sel, Labels{});
    }
  }
  if (const Value* s = doc.Find("nodeSelector")) {
    auto sel = DecodeNodeSelector(*s, "nodeSelector");
    if (sel.ok()) {
      (void)Matches(*sel, labels, "node-1");
      (void)Matches(*sel, Labels{}, "");
    }
  }
  if (const Value* s = doc.Find("nodeAffinity")) (void)DecodeNodeAffinity(*s, "nodeAffinity");
  if (const Value* s = doc.Find("topologySpreadConstraint")) {
    (void)DecodeTopologySpreadConstraint(*s, "topologySpreadConstraint");
  }
  return 0;
}
