#pragma once
// The legacy registry behind config/policy.cc: which plugins (at which extension points) each
// Policy predicate / priority name turns on, upstream's orderings and default sets, and the
// LegacyExtender decoder. For config/policy.cc and its tests only. Immutable; thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api/value.h"
#include "base/result.h"
#include "config/types.h"

namespace berth::config::policy_internal {

// Extension points a legacy name turns on (bit set).
enum Point : unsigned {
  kPreFilter = 1,
  kFilter = 2,
  kPreScore = 4,
  kScore = 8,
  kReserve = 16,
  kPreBind = 32,
};

struct PluginPoints {
  const char* plugin;
  unsigned points;
};

using Table = std::map<std::string, std::vector<PluginPoints>, std::less<>>;

// Predicate name -> plugins (upstream's predicateToConfigProducer; aliases not included).
const Table& PredicateTable();
// Upstream's predicateOrdering: the order in which predicates' Filter plugins are appended.
const std::vector<std::string>& PredicateOrdering();
// Priority name -> plugins; the custom priorities appear under their plugin's name (NodeLabel,
// ServiceAffinity), as upstream keyed them.
const Table& PriorityTable();
// Upstream's DefaultPredicates / DefaultPriorities (with weights), used when a list is absent.
const std::vector<std::string>& DefaultPredicates();
const std::map<std::string, int64_t>& DefaultPriorities();

// `extenders` of a Policy (LegacyExtender) -> config::Extender, with upstream's ValidatePolicy
// extender checks. Errors name `<path>[i].<field>`.
Result<std::vector<Extender>> DecodeLegacyExtenders(const api::Value& list,
                                                    const std::string& path);

}  // namespace berth::config::policy_internal
