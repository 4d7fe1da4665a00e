#include "scheduler/diagnosis/text.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "api/decode.h"
#include "base/strings.h"

namespace berth::diagnosis {
namespace {

// Left-aligned columns, two spaces apart.
std::string Table(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string RenderText(const Record& r, const std::string& source) {
  std::ostringstream out;
  out << "Pod " << OneLine(r.pod);
  if (!r.profile.empty()) out << " (scheduler " << OneLine(r.profile) << ")";
  out << ": " << OneLine(r.status);
  if (!r.node.empty()) out << " on " << OneLine(r.node);
  if (r.attempted_unix_micros != 0) {
    out << ", attempted " << api::FormatTime(api::Time{r.attempted_unix_micros});
  }
  out << "\nSource: " << OneLine(source) << "\n";
  if (!r.message.empty()) out << "Message: " << OneLine(r.message) << "\n";
  if (!r.nominated_node.empty()) out << "Nominated node: " << OneLine(r.nominated_node) << "\n";
  if (!r.pre_filter.empty()) {
    out << "\nRejected before any node was tried (PreFilter";
    if (!r.pre_filter_plugin.empty()) out << " " << OneLine(r.pre_filter_plugin);
    out << "): " << OneLine(r.pre_filter) << "\n";
  }
  if (!r.nearest.empty()) {
    out << "\nNearest nodes (what each would need):\n";
    std::vector<std::vector<std::string>> rows{{"NODE", "PLUGIN", "REASON", "NEED"}};
    for (const NearMiss& n : r.nearest) {
      bool first = true;
      if (!n.preemption.empty()) {
        rows.push_back({OneLine(n.node), "DefaultPreemption", "preemption", OneLine(n.preemption)});
        first = false;
      }
      for (const Failure& f : n.failed) {
        rows.push_back({first ? OneLine(n.node) : "", OneLine(f.plugin), OneLine(f.reason),
                        f.need.empty() ? "-" : OneLine(f.need)});
        first = false;
      }
    }
    out << Table(rows, "  ");
  }
  if (r.preemption) {
    out << "\nPreemption: ";
    if (!r.preemption->node.empty()) {
      out << "node " << OneLine(r.preemption->node) << ", evicting";
      for (const Victim& v : r.preemption->victims) {
        out << " " << OneLine(v.pod) << " (priority " << v.priority << ")";
      }
      out << "\n";
    } else {
      // The message is PostFilter's, already prefixed "preemption: ".
      std::string msg = r.preemption->message.empty() ? "no candidate" : r.preemption->message;
      if (msg.starts_with("preemption: ")) msg.erase(0, 12);
      out << OneLine(msg) << "\n";
    }
  }
  if (!r.filter.empty()) {
    // Group nodes by their reasons, most nodes first.
    std::map<std::string, std::vector<std::string>> by_reason;
    for (const auto& ns : r.filter) by_reason[ns.reasons].push_back(ns.node);
    std::vector<std::pair<std::string, std::vector<std::string>>> groups(by_reason.begin(),
                                                                         by_reason.end());
    std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
      return a.second.size() > b.second.size();
    });
    out << "\nRejected nodes (" << r.filter.size() << "):\n";
    std::vector<std::vector<std::string>> rows{{"NODES", "REASONS"}};
    for (const auto& [reasons, nodes] : groups) {
      std::string names;
      for (size_t i = 0; i < nodes.size() && i < 3; ++i)
        names += (i ? ", " : "") + OneLine(nodes[i]);
      if (nodes.size() > 3) names += " and " + std::to_string(nodes.size() - 3) + " more";
      rows.push_back({names, OneLine(reasons)});
    }
    out << Table(rows, "  ");
  }
  return out.str();
}

}  // namespace berth::diagnosis
