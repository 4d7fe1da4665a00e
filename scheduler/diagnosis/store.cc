#include "scheduler/diagnosis/store.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

namespace berth::diagnosis {

std::string ReasonLabel(const std::string& reason) {
  std::string out;
  out.reserve(reason.size());
  for (size_t i = 0; i < reason.size(); ++i) {
    if (reason[i] != '"') {
      out += reason[i];
      continue;
    }
    const size_t end = reason.find('"', i + 1);
    if (end == std::string::npos) {
      out.append(reason, i, std::string::npos);
      break;
    }
    out += "\"<name>\"";
    i = end;
  }
  return out;
}

void Record::OwnFilter() {
  for (const auto& [node, i] : filter_refs) {
    filter.push_back(
        {std::string(node), filter_statuses.at(i).plugin, filter_statuses.at(i).reasons});
  }
  filter_refs.clear();
  filter_statuses.clear();
}

Store::Store(StoreOptions options) : options_(options) {}
Store::~Store() = default;

uint32_t Store::NodeId(std::string_view name) {
  if (auto it = node_ids_.find(name); it != node_ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(node_names_.size());
  node_ids_.emplace(std::string(name), id);
  node_names_.emplace_back(name);
  return id;
}

uint32_t Store::StatusId(const std::string& plugin, const std::string& reasons) {
  key_buf_.assign(plugin).push_back('\0');
  key_buf_.append(reasons);
  if (auto it = status_ids_.find(key_buf_); it != status_ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(statuses_.size());
  status_ids_.emplace(key_buf_, id);
  statuses_.emplace_back(plugin, reasons);
  return id;
}

std::shared_ptr<const std::string> Store::Intern(const std::string& s) {
  if (s.empty()) return nullptr;
  auto& slot = strings_[s];
  if (auto p = slot.lock()) return p;
  auto p = std::make_shared<const std::string>(s);
  slot = p;
  return p;
}

std::shared_ptr<const Store::Table> Store::InternTable(Table t) {
  if (t.runs.empty()) return nullptr;
  size_t h = t.runs.size();
  for (const Run& r : t.runs) {
    h = h * 1000003u ^ (static_cast<size_t>(r.first_node) << 32 | r.count);
    h = h * 1000003u ^ r.status;
  }
  t.hash = h;
  auto& bucket = tables_[h];
  for (auto& weak : bucket) {
    auto p = weak.lock();
    if (p == nullptr || p->runs.size() != t.runs.size()) continue;
    if (std::equal(p->runs.begin(), p->runs.end(), t.runs.begin(), [](const Run& a, const Run& b) {
          return a.first_node == b.first_node && a.count == b.count && a.status == b.status;
        })) {
      return p;
    }
  }
  auto p = std::make_shared<const Table>(std::move(t));
  bucket.push_back(p);
  return p;
}

Store::Entry Store::Compact(const Record& r) {
  Entry e;
  e.uid = r.uid;
  e.profile = r.profile;
  e.attempted_unix_micros = r.attempted_unix_micros;
  e.status = r.status;
  e.message = Intern(r.message);
  e.node = r.node;
  e.pre_filter_plugin = r.pre_filter_plugin;
  e.pre_filter = Intern(r.pre_filter);
  std::vector<std::pair<uint32_t, uint32_t>> ids;
  if (!r.filter_refs.empty()) {
    std::vector<uint32_t> status_ids;
    status_ids.reserve(r.filter_statuses.size());
    for (const auto& ns : r.filter_statuses) status_ids.push_back(StatusId(ns.plugin, ns.reasons));
    ids.reserve(r.filter_refs.size());
    for (const auto& [node, local] : r.filter_refs) {
      ids.emplace_back(NodeId(node), status_ids.at(local));
    }
  } else {
    ids.reserve(r.filter.size());
    for (const auto& ns : r.filter)
      ids.emplace_back(NodeId(ns.node), StatusId(ns.plugin, ns.reasons));
  }
  std::sort(ids.begin(), ids.end());
  Table t;
  for (const auto& [node, status] : ids) {
    if (!t.runs.empty()) {
      Run& last = t.runs.back();
      if (last.status == status && last.first_node + last.count == node) {
        ++last.count;
        continue;
      }
    }
    t.runs.push_back({node, 1, status});
  }
  e.table = InternTable(std::move(t));
  e.nearest = r.nearest;
  e.preemption = r.preemption;
  e.nominated_node = r.nominated_node;
  e.evaluated_nodes = r.evaluated_nodes;
  e.feasible_nodes = r.feasible_nodes;
  return e;
}

Record Store::Expand(const std::string& key, const Entry& e) const {
  Record r;
  r.pod = key;
  r.uid = e.uid;
  r.profile = e.profile;
  r.attempted_unix_micros = e.attempted_unix_micros;
  r.status = e.status;
  if (e.message) r.message = *e.message;
  r.node = e.node;
  r.pre_filter_plugin = e.pre_filter_plugin;
  if (e.pre_filter) r.pre_filter = *e.pre_filter;
  if (e.table) {
    for (const Run& run : e.table->runs) {
      const auto& [plugin, reasons] = statuses_[run.status];
      for (uint32_t i = 0; i < run.count; ++i) {
        r.filter.push_back({node_names_[run.first_node + i], plugin, reasons});
      }
    }
    std::sort(
        r.filter.begin(), r.filter.end(),
        [](const Record::NodeStatus& a, const Record::NodeStatus& b) { return a.node < b.node; });
  }
  r.nearest = e.nearest;
  r.preemption = e.preemption;
  r.nominated_node = e.nominated_node;
  r.evaluated_nodes = e.evaluated_nodes;
  r.feasible_nodes = e.feasible_nodes;
  return r;
}

// Every distinct (plugin, reason) of the record, from the per-node statuses (split back into
// reasons) and PreFilter's verdict.
void Store::CountReasons(const Record& r, Entry* e) {
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](const std::string& plugin, const std::string& joined) {
    // Status::Message joins reasons with ", "; a reason may contain ", " itself (rare), which
    // then counts as two labels: still bounded.
    size_t start = 0;
    while (start <= joined.size()) {
      size_t end = joined.find(", ", start);
      if (end == std::string::npos) end = joined.size();
      if (end > start) seen.emplace(plugin, ReasonLabel(joined.substr(start, end - start)));
      start = end + 2;
    }
  };
  // The status strings are interned: split each distinct one once.
  std::set<uint32_t> status_ids;
  if (e->table) {
    for (const Run& run : e->table->runs) status_ids.insert(run.status);
  }
  for (uint32_t id : status_ids) add(statuses_[id].first, statuses_[id].second);
  if (!r.pre_filter.empty()) add(r.pre_filter_plugin, r.pre_filter);
  if (seen.empty() && !r.message.empty()) seen.emplace("", ReasonLabel(r.message));
  for (const auto& [plugin, reason] : seen) {
    ReasonKey key{r.profile, plugin, reason};
    auto it = reasons_.find(key);
    if (it == reasons_.end()) {
      if (reasons_.size() >= options_.max_reason_labels)
        key = ReasonKey{r.profile, plugin, "other"};
      it = reasons_.try_emplace(std::move(key), 0).first;
    }
    ++it->second;
    e->reason_keys.push_back(it);
  }
}

void Store::Uncount(Entry* e) {
  for (auto it : e->reason_keys) {
    if (--it->second == 0) reasons_.erase(it);
  }
  e->reason_keys.clear();
}

void Store::EraseFailure(std::string_view key) {
  auto it = failures_.find(key);
  if (it == failures_.end()) return;
  Uncount(&it->second);
  failures_.erase(it);
  num_failures_.store(failures_.size(), std::memory_order_relaxed);
}

void Store::SweepIfDue() {
  if (++inserts_since_sweep_ < 4096) return;
  inserts_since_sweep_ = 0;
  for (auto it = strings_.begin(); it != strings_.end();) {
    it = it->second.expired() ? strings_.erase(it) : std::next(it);
  }
  for (auto it = tables_.begin(); it != tables_.end();) {
    auto& v = it->second;
    v.erase(std::remove_if(v.begin(), v.end(), [](const auto& w) { return w.expired(); }), v.end());
    it = v.empty() ? tables_.erase(it) : std::next(it);
  }
}

void Store::RecordFailure(const Record& r) {
  std::lock_guard lock(mu_);
  EraseFailure(r.pod);
  Entry e = Compact(r);
  CountReasons(r, &e);
  failures_.insert_or_assign(r.pod, std::move(e));
  num_failures_.store(failures_.size(), std::memory_order_relaxed);
  SweepIfDue();
}

void Store::RecordScheduled(const Record& r) {
  std::lock_guard lock(mu_);
  EraseFailure(r.pod);
  if (options_.placed == 0) return;
  if (placed_.count(r.pod) == 0) placed_order_.push_back(r.pod);
  placed_.insert_or_assign(r.pod, Compact(r));
  while (placed_order_.size() > options_.placed) {
    placed_.erase(placed_order_.front());
    placed_order_.pop_front();
  }
  SweepIfDue();
}

void Store::Bound(std::string_view ns, std::string_view name, std::string_view uid) {
  if (num_failures_.load(std::memory_order_relaxed) == 0) return;
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  if (it != failures_.end() && (uid.empty() || it->second.uid == uid)) EraseFailure(key);
}

void Store::Forget(std::string_view key, std::string_view uid) {
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  if (it != failures_.end() && (uid.empty() || it->second.uid == uid)) EraseFailure(key);
  auto p = placed_.find(key);
  if (p != placed_.end() && (uid.empty() || p->second.uid == uid)) {
    placed_.erase(p);
    placed_order_.erase(std::find(placed_order_.begin(), placed_order_.end(), key));
  }
}

std::optional<Record> Store::Get(std::string_view key) const {
  std::lock_guard lock(mu_);
  if (auto it = failures_.find(key); it != failures_.end()) return Expand(it->first, it->second);
  if (auto it = placed_.find(key); it != placed_.end()) return Expand(it->first, it->second);
  return std::nullopt;
}

size_t Store::NumUnschedulable() const {
  std::lock_guard lock(mu_);
  return failures_.size();
}

size_t Store::NumPlaced() const {
  std::lock_guard lock(mu_);
  return placed_.size();
}

std::map<Store::ReasonKey, int64_t> Store::ReasonCounts() const {
  std::lock_guard lock(mu_);
  return reasons_;
}

}  // namespace berth::diagnosis
