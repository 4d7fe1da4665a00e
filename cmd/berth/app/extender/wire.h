#pragma once
// The scheduler-extender wire protocol (k8s.io/kube-scheduler/extender/v1), both directions.
// Upstream's structs have no json tags, so Go writes the field names as they are (PascalCase)
// and reads them case-insensitively: berth writes PascalCase and accepts any letter case for
// the envelope's fields (the embedded Pod / Node objects use the API's own field names).
//
//   ExtenderArgs          {"Pod": v1.Pod, "Nodes": v1.NodeList | null, "NodeNames": [..] | null}
//   ExtenderFilterResult  {"Nodes": NodeList|null, "NodeNames": [..]|null,
//                          "FailedNodes": {node: reason}, "FailedAndUnresolvableNodes": {..},
//                          "Error": ""}
//   HostPriorityList      [{"Host": "n1", "Score": 7}, ...]
//   ExtenderBindingArgs   {"PodName", "PodNamespace", "PodUID", "Node"} -> {"Error": ""}
//
// Pure functions; thread-safe. Decoding errors describe what is wrong with the document, e.g.
// `FailedNodes: want an object of node name -> reason, got array`.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "api/value.h"
#include "base/result.h"

namespace berth::extenders {

// Case-insensitive member lookup (exact match preferred), as Go's encoding/json matches fields.
const api::Value* FindFold(const api::Value& object, std::string_view key);

// Whether a and b are equal ignoring ASCII letter case (FindFold's comparison of member names).
bool EqualFold(std::string_view a, std::string_view b);

// ---- client side (berth calling an extender) ----
// The three answers are decoded from an event stream (wire_answers.cc): memory in proportion to
// the decoded result, never to a tree of the document. Errors: `malformed <what>: invalid JSON at
// offset N: ...`, then the fields' as below.

// ExtenderArgs for a filter/prioritize call: NodeNames when node_cache_capable, else the full
// Nodes list.
std::string EncodeExtenderArgs(const api::Pod& pod, const std::vector<const api::Node*>& nodes,
                               bool node_cache_capable);

struct FilterResult {
  // Passing nodes, by name: from NodeNames, or from Nodes.items[].metadata.name. Neither
  // present (both null) means no node passed, as upstream reads it.
  std::optional<std::vector<std::string>> node_names;
  std::optional<std::vector<std::string>> nodes;
  std::map<std::string, std::string> failed_nodes;
  std::map<std::string, std::string> failed_and_unresolvable_nodes;
  std::string error;
};
Result<FilterResult> DecodeFilterResult(std::string_view body);

struct HostPriority {
  std::string host;
  int64_t score = 0;
};
Result<std::vector<HostPriority>> DecodeHostPriorityList(std::string_view body);

std::string EncodeBindingArgs(const api::Pod& pod, const std::string& node);
// The binding result's Error ("" = bound).
Result<std::string> DecodeBindingResult(std::string_view body);

// ---- server side (berth answering as an extender) ----

struct ExtenderArgs {
  std::optional<api::Value> pod;  // absent or null -> nullopt
  // Node names asked about: NodeNames, or else Nodes.items[].metadata.name.
  std::vector<std::string> node_names;
  // The Nodes items as received (when Nodes was sent), parallel to node_names, so the answer can
  // echo them back.
  std::optional<std::vector<api::Value>> node_items;
};
Result<ExtenderArgs> DecodeExtenderArgs(std::string_view body);

// An ExtenderFilterResult. When the request carried Nodes, `passed_items` (the passing nodes'
// objects) is written as Nodes and NodeNames is null; otherwise NodeNames lists `passed`.
struct FilterAnswer {
  std::vector<std::string> passed;
  std::optional<std::vector<api::Value>> passed_items;
  std::map<std::string, std::string> failed;
  std::map<std::string, std::string> failed_and_unresolvable;
  std::string error;
};
std::string EncodeFilterAnswer(const FilterAnswer& answer);
std::string EncodeHostPriorityList(const std::vector<HostPriority>& list);

}  // namespace berth::extenders
