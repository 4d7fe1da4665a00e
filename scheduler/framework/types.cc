#include "scheduler/framework/types.h"

#include <algorithm>
#include <map>

namespace berth::framework {

std::string FitErrorMessage(int num_all_nodes, const Diagnosis& d) {
  std::string msg = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!d.pre_filter_msg.empty()) {
    // When PreFilter rejects, every node carries the same status: report the message once.
    msg += " " + d.pre_filter_msg + ".";
  } else {
    std::map<std::string, int> histogram;
    for (const auto& [node, status] : d.node_to_status.statuses()) {
      for (const auto& r : status.reasons()) histogram[r]++;
    }
    int absent = num_all_nodes - static_cast<int>(d.node_to_status.Size());
    if (absent > 0) {
      for (const auto& r : d.node_to_status.absent_status.reasons()) histogram[r] += absent;
    }
    std::vector<std::string> entries;
    entries.reserve(histogram.size());
    for (const auto& [reason, count] : histogram) {
      entries.push_back(std::to_string(count) + " " + reason);
    }
    // Same order as upstream: a plain string sort of "<count> <reason>".
    std::sort(entries.begin(), entries.end());
    if (!entries.empty()) {
      msg += " ";
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) msg += ", ";
        msg += entries[i];
      }
      msg += ".";
    }
  }
  // Upstream (since v1.30) appends the PostFilter message as is: preemption's own FitError
  // message already ends in a period.
  if (!d.post_filter_msg.empty()) msg += " " + d.post_filter_msg;
  return msg;
}

void NodeToStatus::Set(const std::string& node, Status s) {
  if (Get(node) != nullptr) {  // builds the index
    entries_[index_.find(node)->second].second = std::move(s);
    return;
  }
  Append(node, std::move(s));
}

const Status* NodeToStatus::Get(std::string_view node) const {
  if (!indexed_) {
    index_.clear();
    for (size_t i = 0; i < entries_.size(); ++i) index_[entries_[i].first] = i;
    indexed_ = true;
  }
  auto it = index_.find(node);
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

std::string TruncateNote(std::string msg) {
  constexpr size_t kLimit = 1024;
  if (msg.size() <= kLimit) return msg;
  msg.resize(kLimit - 4);
  msg += " ...";
  return msg;
}

}  // namespace berth::framework
