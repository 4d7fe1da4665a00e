#include "scheduler/framework/cycle_state.h"

#include <mutex>
#include <unordered_map>

namespace berth::framework {
namespace {

struct KeyTable {
  std::mutex mu;  // guards both containers
  std::unordered_map<std::string, int> ids;
  std::vector<std::unique_ptr<std::string>> names;
};

KeyTable& Table() {
  static KeyTable* t = new KeyTable();  // never destroyed: keys live in static objects
  return *t;
}

}  // namespace

StateKey::StateKey(std::string_view name) {
  auto& t = Table();
  std::lock_guard lock(t.mu);
  auto [it, inserted] = t.ids.emplace(std::string(name), static_cast<int>(t.names.size()));
  if (inserted) t.names.push_back(std::make_unique<std::string>(name));
  id_ = it->second;
}

const std::string& StateKey::name() const {
  auto& t = Table();
  std::lock_guard lock(t.mu);
  return *t.names[static_cast<size_t>(id_)];
}

void CycleState::Write(const StateKey& key, std::unique_ptr<StateData> data) {
  auto i = static_cast<size_t>(key.id());
  if (i >= slots_.size()) slots_.resize(i + 1);
  slots_[i] = std::move(data);
}

void CycleState::Delete(const StateKey& key) {
  auto i = static_cast<size_t>(key.id());
  if (i < slots_.size()) slots_[i].reset();
}

void CycleState::DropSchedulingCycleOnly() {
  for (auto& slot : slots_) {
    if (slot && slot->SchedulingCycleOnly()) slot.reset();
  }
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto out = std::make_unique<CycleState>();
  out->slots_.resize(slots_.size());
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i]) out->slots_[i] = slots_[i]->Clone();
  }
  out->skip_filter_plugins = skip_filter_plugins;
  out->skip_score_plugins = skip_score_plugins;
  out->skip_filter_mask = skip_filter_mask;
  out->record_plugin_metrics = record_plugin_metrics;
  out->pods_to_activate = pods_to_activate;
  return out;
}

}  // namespace berth::framework
