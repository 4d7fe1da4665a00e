#include "plugins/inter_pod_affinity/terms.h"

#include <algorithm>

#include "api/selector.h"

namespace berth::plugins::inter_pod_affinity {
namespace {

bool IsEmpty(const api::LabelSelector& s) {
  return s.match_labels.empty() && s.match_expressions.empty();
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

bool LabelsMatch(const api::PodAffinityTerm& term, const api::Labels& owner_labels,
                 const api::Labels& target_labels) {
  if (!term.label_selector) return false;  // nil selector: labels.Nothing()
  if (!api::Matches(*term.label_selector, target_labels)) return false;
  for (const auto& key : term.match_label_keys) {
    auto own = owner_labels.find(key);
    if (own == owner_labels.end()) continue;
    auto it = target_labels.find(key);
    if (it == target_labels.end() || it->second != own->second) return false;
  }
  for (const auto& key : term.mismatch_label_keys) {
    auto own = owner_labels.find(key);
    if (own == owner_labels.end()) continue;
    auto it = target_labels.find(key);
    if (it != target_labels.end() && it->second == own->second) return false;
  }
  return true;
}

bool ExistingTermMatches(const api::PodAffinityTerm& term, const api::Pod& owner,
                         const api::Pod& target, const api::Labels& target_ns_labels) {
  const std::string& ns = target.metadata.namespace_;
  bool ns_ok;
  if (term.namespaces.empty() && !term.namespace_selector) {
    ns_ok = ns == owner.metadata.namespace_;
  } else {
    ns_ok = Contains(term.namespaces, ns) ||
            (term.namespace_selector && api::Matches(*term.namespace_selector, target_ns_labels));
  }
  return ns_ok && LabelsMatch(term, owner.metadata.labels, target.metadata.labels);
}

bool IncomingTerm::Matches(const api::Pod& target) const {
  if (!all_namespaces &&
      !std::binary_search(namespaces.begin(), namespaces.end(), target.metadata.namespace_)) {
    return false;
  }
  return LabelsMatch(*spec, *owner_labels, target.metadata.labels);
}

IncomingTerm MakeIncomingTerm(const api::Pod& owner, const api::PodAffinityTerm& term,
                              int32_t weight, const api::Store<api::Namespace>& namespaces) {
  IncomingTerm out;
  out.spec = &term;
  out.owner_labels = &owner.metadata.labels;
  out.weight = weight;
  if (term.namespaces.empty() && !term.namespace_selector) {
    out.namespaces.push_back(owner.metadata.namespace_);
  } else {
    out.namespaces = term.namespaces;
  }
  if (term.namespace_selector) {
    if (IsEmpty(*term.namespace_selector)) {
      // labels.Everything() is Empty(): upstream leaves it in place and it matches any namespace.
      out.all_namespaces = true;
    } else {
      const api::LabelSelector& sel = *term.namespace_selector;
      namespaces.ForEach([&](const api::Namespace& n) {
        if (api::Matches(sel, n.metadata.labels)) out.namespaces.push_back(n.metadata.name);
      });
    }
  }
  std::sort(out.namespaces.begin(), out.namespaces.end());
  out.namespaces.erase(std::unique(out.namespaces.begin(), out.namespaces.end()),
                       out.namespaces.end());
  return out;
}

bool MatchesAll(const std::vector<IncomingTerm>& terms, const api::Pod& target) {
  if (terms.empty()) return false;
  for (const auto& t : terms) {
    if (!t.Matches(target)) return false;
  }
  return true;
}

// ---- TopologyCounts ----

namespace {
size_t HashOf(std::string_view s) { return std::hash<std::string_view>{}(s); }
}  // namespace

const TopologyCounts::PerKey* TopologyCounts::Find(const std::string& key) const {
  for (const auto& k : keys_) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

TopologyCounts::PerKey& TopologyCounts::FindOrAdd(const std::string& key) {
  for (auto& k : keys_) {
    if (k.key == key) return k;
  }
  keys_.push_back(PerKey{key, std::vector<Slot>(16), 0});
  return keys_.back();
}

const TopologyCounts::Slot* TopologyCounts::Lookup(const PerKey& k, std::string_view value) {
  if (k.used == 0) return nullptr;
  const size_t hash = HashOf(value);
  const size_t mask = k.slots.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = k.slots[i];
    if (!s.used) return nullptr;
    if (s.hash == hash && s.value == value) return &s;
  }
}

bool TopologyCounts::AddTo(PerKey& k, std::string_view value, size_t hash, int64_t delta) {
  size_t mask = k.slots.size() - 1;
  size_t i = hash & mask;
  for (; k.slots[i].used; i = (i + 1) & mask) {
    Slot& s = k.slots[i];
    if (s.hash != hash || s.value != value) continue;
    const bool was_zero = s.count == 0;
    s.count += delta;
    if (was_zero && s.count != 0) ++num_nonzero_;
    if (!was_zero && s.count == 0) --num_nonzero_;
    return false;
  }
  if (delta == 0 && erase_zero_) return false;
  if ((k.used + 1) * 2 > k.slots.size()) {
    Rehash(k, k.slots.size() * 2);
    mask = k.slots.size() - 1;
    i = hash & mask;
    while (k.slots[i].used) i = (i + 1) & mask;
  }
  k.slots[i] = Slot{value, hash, delta, true};
  ++k.used;
  ++num_entries_;
  if (delta != 0) ++num_nonzero_;
  return true;
}

void TopologyCounts::Rehash(PerKey& k, size_t capacity) {
  std::vector<Slot> old(capacity);
  old.swap(k.slots);
  const size_t mask = k.slots.size() - 1;
  for (const Slot& s : old) {
    if (!s.used) continue;
    size_t j = s.hash & mask;
    while (k.slots[j].used) j = (j + 1) & mask;
    k.slots[j] = s;
  }
}

void TopologyCounts::Reserve(const std::string& key, size_t n) {
  PerKey& k = FindOrAdd(key);
  size_t capacity = k.slots.size();
  while ((k.used + n) * 2 > capacity) capacity *= 2;
  if (capacity != k.slots.size()) Rehash(k, capacity);
}

void TopologyCounts::Add(const std::string& key, std::string_view value, int64_t delta) {
  AddTo(FindOrAdd(key), value, HashOf(value), delta);
}

bool TopologyCounts::AddForNode(const std::string& key,
                                const std::shared_ptr<const api::Node>& node, int64_t delta) {
  const api::Labels& labels = node->metadata.labels;
  auto it = labels.find(key);
  if (it == labels.end()) return false;
  const std::string_view value = it->second;
  if (AddTo(FindOrAdd(key), value, HashOf(value), delta) &&
      (owners_.empty() || owners_.back() != node)) {
    owners_.push_back(node);
  }
  return true;
}

void TopologyCounts::AddFromNode(const std::string& key, std::string_view value,
                                 const std::shared_ptr<const api::Node>& node, int64_t delta) {
  if (AddTo(FindOrAdd(key), value, HashOf(value), delta) &&
      (owners_.empty() || owners_.back() != node)) {
    owners_.push_back(node);
  }
}

int64_t TopologyCounts::Get(const std::string& key, std::string_view value) const {
  const PerKey* k = Find(key);
  if (k == nullptr) return 0;
  const Slot* s = Lookup(*k, value);
  return s == nullptr ? 0 : s->count;
}

int64_t TopologyCounts::GetForNode(const std::string& key, const api::Labels& node_labels,
                                   bool* has_key) const {
  auto label = node_labels.find(key);
  *has_key = label != node_labels.end();
  if (!*has_key) return 0;
  return Get(key, label->second);
}

int64_t TopologyCounts::SumForNode(const api::Labels& node_labels) const {
  int64_t sum = 0;
  for (const auto& k : keys_) {
    auto label = node_labels.find(k.key);
    if (label == node_labels.end()) continue;
    if (const Slot* s = Lookup(k, label->second)) sum += s->count;
  }
  return sum;
}

bool TopologyCounts::AnyPositiveForNode(const api::Labels& node_labels) const {
  for (const auto& k : keys_) {
    if (k.used == 0) continue;
    auto label = node_labels.find(k.key);
    if (label == node_labels.end()) continue;
    const Slot* s = Lookup(k, label->second);
    if (s != nullptr && s->count > 0) return true;
  }
  return false;
}

void TopologyCounts::Merge(const TopologyCounts& other) {
  for (const auto& k : other.keys_) {
    if (k.used == 0) continue;
    PerKey& mine = FindOrAdd(k.key);
    for (const Slot& s : k.slots) {
      if (s.used) AddTo(mine, s.value, s.hash, s.count);
    }
  }
  owners_.insert(owners_.end(), other.owners_.begin(), other.owners_.end());
}

}  // namespace berth::plugins::inter_pod_affinity
