// The AllocationResult of one claim once the search succeeded: devices, the class and claim
// configuration that applies to them, and where the allocation can be used (upstream's tail of
// Allocate and createNodeSelector).

#include <algorithm>
#include <set>

#include "plugins/dynamic_resources/structured/search.h"

namespace berth::plugins::dynamic_resources::structured {
namespace {

bool Contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Same key, operator and set of values.
bool ContainsRequirement(const std::vector<api::NodeSelectorRequirement>& list,
                         const api::NodeSelectorRequirement& r) {
  const std::set<std::string> values(r.values.begin(), r.values.end());
  return std::any_of(list.begin(), list.end(), [&](const auto& e) {
    return e.key == r.key && e.op == r.op &&
           std::set<std::string>(e.values.begin(), e.values.end()) == values;
  });
}

void AddRequirements(const std::vector<api::NodeSelectorRequirement>& from,
                     std::vector<api::NodeSelectorRequirement>* to) {
  for (const auto& r : from) {
    if (!ContainsRequirement(*to, r)) to->push_back(r);
  }
}

// Upstream's createNodeSelector: pinned to the node when any device is local to it (a node
// name, or bindsToNode), else the union of the slices' single-term selectors; nullopt when the
// devices are reachable from every node.
Result<std::optional<api::NodeSelector>> NodeSelectorFor(const std::vector<DeviceResult>& devices,
                                                         const std::string& node_name) {
  api::NodeSelectorTerm merged;
  for (const DeviceResult& d : devices) {
    const bool per_device = d.slice->spec.per_device_node_selection.value_or(false);
    const std::optional<std::string>& pinned =
        per_device ? d.device->node_name : d.slice->spec.node_name;
    const std::optional<api::NodeSelector>& selector =
        per_device ? d.device->node_selector : d.slice->spec.node_selector;
    if (pinned.has_value() || d.device->binds_to_node.value_or(false)) {
      api::NodeSelectorRequirement by_name;
      by_name.key = "metadata.name";
      by_name.op = api::SelectorOperator::kIn;
      by_name.values = {node_name};
      api::NodeSelectorTerm term;
      term.match_fields.push_back(std::move(by_name));
      return std::optional<api::NodeSelector>(api::NodeSelector{{std::move(term)}});
    }
    if (!selector) continue;
    if (selector->terms.size() > 1) {
      return Error{"unsupported ResourceSlice.NodeSelector with " +
                       std::to_string(selector->terms.size()) + " terms",
                   ErrorCode::kInvalid};
    }
    if (selector->terms.size() == 1) {
      AddRequirements(selector->terms[0].match_fields, &merged.match_fields);
      AddRequirements(selector->terms[0].match_expressions, &merged.match_expressions);
    }
  }
  if (merged.match_fields.empty() && merged.match_expressions.empty()) {
    return std::optional<api::NodeSelector>();
  }
  return std::optional<api::NodeSelector>(api::NodeSelector{{std::move(merged)}});
}

}  // namespace

Result<api::AllocationResult> Search::BuildResult(size_t claim_index) const {
  const api::ResourceClaim& claim = *claims_[claim_index];
  const auto& requests = claim.spec.devices.requests;
  const int ci = static_cast<int>(claim_index);
  api::AllocationResult out;

  // The request data that was used: a request's own, or its selected subrequest's.
  auto used = [&](size_t ri) -> const RequestData& {
    const RequestData& data = requests_.at(RequestKey{ci, static_cast<int>(ri), 0});
    if (!data.parent) return data;
    return requests_.at(RequestKey{ci, static_cast<int>(ri), data.selected_sub});
  };
  // "<request>/<subrequest>" for a request whose subrequest was used; empty otherwise.
  auto used_sub_name = [&](size_t ri) -> std::string {
    const RequestData& data = requests_.at(RequestKey{ci, static_cast<int>(ri), 0});
    if (!data.parent) return {};
    return requests[ri].name + "/" +
           requests[ri].first_available[static_cast<size_t>(data.selected_sub)].name;
  };

  for (size_t di = 0; di < result_[claim_index].size(); ++di) {
    const DeviceResult& d = result_[claim_index][di];
    api::DeviceRequestAllocationResult r;
    r.request = d.RequestName();
    r.driver = d.id.driver;
    r.pool = d.id.pool;
    r.device = d.id.device;
    if (d.admin_access) r.admin_access = true;
    // The tolerations of the (sub)request the device was picked for.
    for (const auto& request : requests) {
      const std::string& top = d.parent_request.empty() ? d.request : d.parent_request;
      if (request.name != top) continue;
      if (d.parent_request.empty()) {
        if (request.exactly) r.tolerations = request.exactly->tolerations;
      } else {
        for (const auto& sub : request.first_available) {
          if (sub.name == d.request) r.tolerations = sub.tolerations;
        }
      }
      break;
    }
    if (d.shared) {
      // Upstream draws a random UUID; berth derives one from the claim's identity and
      // version and the result's position, so runs are reproducible and a reallocation (a new
      // resourceVersion) gets new IDs.
      r.share_id = ShareIdFor(claim.metadata.uid + "|" + claim.metadata.namespace_ + "/" +
                              claim.metadata.name + "|" + claim.metadata.resource_version + "|" +
                              std::to_string(di) + "|" + d.id.String());
      r.consumed_capacity = d.consumed_capacity;
    }
    if (a_.features_.device_binding_and_status) {
      r.binding_conditions = d.device->binding_conditions;
      r.binding_failure_conditions = d.device->binding_failure_conditions;
    }
    out.devices.results.push_back(std::move(r));
  }

  // Each class's configuration once, naming every request that used the class.
  std::map<std::string, std::pair<size_t, size_t>> class_configs;
  for (size_t ri = 0; ri < requests.size(); ++ri) {
    const RequestData& data = used(ri);
    if (data.device_class == nullptr) continue;
    const std::string name = data.Name();
    auto it = class_configs.find(data.device_class->metadata.name);
    if (it != class_configs.end()) {
      for (size_t i = it->second.first; i < it->second.second; ++i) {
        out.devices.config[i].requests.push_back(name);
      }
      continue;
    }
    const size_t start = out.devices.config.size();
    for (const auto& config : data.device_class->spec.config) {
      api::DeviceAllocationConfiguration c;
      c.source = api::kAllocationConfigSourceClass;
      c.requests = {name};
      c.opaque = config.opaque;
      out.devices.config.push_back(std::move(c));
    }
    class_configs[data.device_class->metadata.name] = {start, out.devices.config.size()};
  }
  // The claim's configuration that applies to a request (or the used subrequest) of it.
  for (const auto& config : claim.spec.devices.config) {
    bool applies = config.requests.empty();
    for (size_t ri = 0; ri < requests.size() && !applies; ++ri) {
      applies = Contains(config.requests, requests[ri].name);
      if (applies) break;
      const std::string sub = used_sub_name(ri);
      applies = !sub.empty() && Contains(config.requests, sub);
    }
    if (!applies) continue;
    api::DeviceAllocationConfiguration c;
    c.source = api::kAllocationConfigSourceClaim;
    c.requests = config.requests;
    c.opaque = config.opaque;
    out.devices.config.push_back(std::move(c));
  }
  // A configuration naming every request applies to all: say so with an empty list.
  for (auto& config : out.devices.config) {
    if (config.requests.empty()) continue;
    bool all = true;
    for (size_t ri = 0; ri < requests.size() && all; ++ri) {
      if (Contains(config.requests, requests[ri].name)) continue;
      const std::string sub = used_sub_name(ri);
      all = !sub.empty() && Contains(config.requests, sub);
    }
    if (all) config.requests.clear();
  }

  auto selector = NodeSelectorFor(result_[claim_index], node_.metadata.name);
  if (!selector.ok()) {
    return selector.status().Wrap("create NodeSelector for claim " + claim.metadata.name);
  }
  out.node_selector = std::move(*selector);
  return out;
}

}  // namespace berth::plugins::dynamic_resources::structured
