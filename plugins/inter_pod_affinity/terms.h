#pragma once
// Pod (anti-)affinity terms and per-topology counters for InterPodAffinity (upstream's
// framework.AffinityTerm, topologyToMatchedTermCount and scoreMap).
//
// Terms are matched straight from the api structs, without parsing them into selectors first, so
// checking an existing pod's term allocates nothing. Two flavours, as upstream:
//   - the incoming pod's terms (IncomingTerm): namespaceSelector is resolved once per cycle into
//     namespace names (mergeAffinityTermNamespacesIfNotEmpty), so matching an existing pod needs
//     no namespace lookup;
//   - an existing pod's term (ExistingTermMatches): namespaceSelector is matched against the
//     labels of the incoming pod's namespace.
// matchLabelKeys / mismatchLabelKeys are applied from the term owner's labels as the API server
// merges them into labelSelector at pod creation (KEP-3633): for each key the owner carries,
// `key In (value)` resp. `key NotIn (value)`; nothing when the term has no labelSelector.
//
// Not thread-safe for writes; const methods may be called concurrently.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/store.h"
#include "api/types.h"

namespace berth::plugins::inter_pod_affinity {

namespace internal {
inline const std::vector<api::PodAffinityTerm> kNoTerms;
inline const std::vector<api::WeightedPodAffinityTerm> kNoWeightedTerms;
}  // namespace internal

// The pod's term lists; empty when absent.
inline const std::vector<api::PodAffinityTerm>& RequiredAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->pod_affinity ? a->pod_affinity->required : internal::kNoTerms;
}
inline const std::vector<api::PodAffinityTerm>& RequiredAntiAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->pod_anti_affinity ? a->pod_anti_affinity->required : internal::kNoTerms;
}
inline const std::vector<api::WeightedPodAffinityTerm>& PreferredAffinityTerms(
    const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->pod_affinity ? a->pod_affinity->preferred : internal::kNoWeightedTerms;
}
inline const std::vector<api::WeightedPodAffinityTerm>& PreferredAntiAffinityTerms(
    const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->pod_anti_affinity ? a->pod_anti_affinity->preferred : internal::kNoWeightedTerms;
}

// Whether `target`'s labels satisfy the term's labelSelector merged with its (mis)matchLabelKeys
// taken from `owner_labels`. A term without labelSelector matches nothing.
bool LabelsMatch(const api::PodAffinityTerm& term, const api::Labels& owner_labels,
                 const api::Labels& target_labels);

// An existing pod's term (owner = the existing pod) against `target` (the incoming pod), whose
// namespace carries `target_ns_labels` (empty when the namespace is unknown). Namespaces: the
// listed ones, or the owner's own when neither namespaces nor namespaceSelector is set; plus those
// the namespaceSelector matches (nil selector = none, {} = all).
bool ExistingTermMatches(const api::PodAffinityTerm& term, const api::Pod& owner,
                         const api::Pod& target, const api::Labels& target_ns_labels);

// A term of the incoming pod with its namespaces resolved. Points into the owner pod, which must
// outlive it (the cycle state keeps the pod's shared_ptr).
struct IncomingTerm {
  const api::PodAffinityTerm* spec = nullptr;
  const api::Labels* owner_labels = nullptr;
  int32_t weight = 0;                   // preferred terms only
  bool all_namespaces = false;          // namespaceSelector: {}
  std::vector<std::string> namespaces;  // sorted, unique

  const std::string& topology_key() const { return spec->topology_key; }
  bool Matches(const api::Pod& target) const;
};

// Resolves `term` of `owner`; `namespaces` is searched when the term has a non-empty
// namespaceSelector.
IncomingTerm MakeIncomingTerm(const api::Pod& owner, const api::PodAffinityTerm& term,
                              int32_t weight, const api::Store<api::Namespace>& namespaces);

// True when `target` matches every term; false for an empty list (upstream's
// podMatchesAllAffinityTerms).
bool MatchesAll(const std::vector<IncomingTerm>& terms, const api::Pod& target);

// Counts per (topology key, value). Topology keys are few (one per distinct term key), so they
// are a small vector; each key has a flat open-addressing table of values. Values are views into
// the labels of the nodes they came from, which the counts keep alive (AddForNode), so building
// and querying allocate nothing per entry beyond table growth.
class TopologyCounts {
 public:
  // erase_zero: a pair whose count returns to zero counts as absent (Filter counters, as
  // upstream's topologyToMatchedTermCount); score maps keep them (upstream's scoreMap).
  TopologyCounts() = default;
  explicit TopologyCounts(bool erase_zero) : erase_zero_(erase_zero) {}

  // Adds delta at (key, value). `value` must outlive these counts (a literal, or a label of a node
  // kept alive by AddForNode).
  void Add(const std::string& key, std::string_view value, int64_t delta);
  // Adds delta at the node's value for key; false (nothing added) when the node lacks the label.
  bool AddForNode(const std::string& key, const std::shared_ptr<const api::Node>& node,
                  int64_t delta);
  // AddForNode with the node's value for key already looked up (a view into node's labels).
  void AddFromNode(const std::string& key, std::string_view value,
                   const std::shared_ptr<const api::Node>& node, int64_t delta);
  int64_t Get(const std::string& key, std::string_view value) const;
  // Count at the node's value for key; *has_key tells whether the node carries the label.
  int64_t GetForNode(const std::string& key, const api::Labels& node_labels, bool* has_key) const;
  // Σ over keys of the count at the node's value for that key.
  int64_t SumForNode(const api::Labels& node_labels) const;
  // True when some (key, node's value for key) has a count > 0.
  bool AnyPositiveForNode(const api::Labels& node_labels) const;

  // Makes room for `n` more values under key, so building does not rehash.
  void Reserve(const std::string& key, size_t n);
  // Makes room for `n` more backing nodes.
  void ReserveOwners(size_t n) { owners_.reserve(owners_.size() + n); }

  bool empty() const { return size() == 0; }
  // Number of (key, value) pairs present.
  size_t size() const { return erase_zero_ ? num_nonzero_ : num_entries_; }
  void Merge(const TopologyCounts& other);

 private:
  struct Slot {
    std::string_view value;
    size_t hash = 0;
    int64_t count = 0;
    bool used = false;
  };
  struct PerKey {
    std::string key;
    std::vector<Slot> slots;  // capacity is a power of two; at most half full
    size_t used = 0;
  };
  const PerKey* Find(const std::string& key) const;
  PerKey& FindOrAdd(const std::string& key);
  // Adds delta; returns true when a new slot was taken.
  bool AddTo(PerKey& k, std::string_view value, size_t hash, int64_t delta);
  static const Slot* Lookup(const PerKey& k, std::string_view value);
  static void Rehash(PerKey& k, size_t capacity);

  bool erase_zero_ = true;
  std::vector<PerKey> keys_;
  size_t num_entries_ = 0;
  size_t num_nonzero_ = 0;
  // Nodes whose label strings back the values.
  std::vector<std::shared_ptr<const api::Node>> owners_;
};

}  // namespace berth::plugins::inter_pod_affinity
