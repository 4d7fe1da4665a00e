#include "plugins/node_resources_fit/explain.h"

#include <algorithm>

#include "base/saturating.h"
#include "plugins/node_resources_fit/node_resources_fit.h"
#include "scheduler/framework/resource.h"

namespace berth::plugins::node_resources_fit {
namespace {

using framework::ExplainDetail;
using framework::FilterNeed;

// "6.5" for 6500 milli: whole units and up to three decimals, trailing zeros dropped.
std::string Decimal(uint64_t milli) {
  std::string out = std::to_string(milli / 1000);
  uint64_t frac = milli % 1000;
  if (frac == 0) return out;
  std::string digits = std::to_string(frac);
  digits.insert(0, 3 - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

std::string Cpu(uint64_t milli) {
  if (milli % 1000 == 0 || milli >= 1000) return Decimal(milli);
  return std::to_string(milli) + "m";
}

std::string Bytes(uint64_t bytes) {
  static constexpr const char* kSuffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int k = 0;
  while (bytes >= 1024 && bytes % 1024 == 0 && k < 6) {
    bytes /= 1024;
    ++k;
  }
  return std::to_string(bytes) + (k == 0 ? "" : kSuffix[k - 1]);
}

// One resource of the request against the node.
struct Amounts {
  std::string_view resource;
  int64_t request;
  int64_t allocatable;
  int64_t in_use;
};

FilterNeed Insufficient(const std::string& reason, const Amounts& a, ExplainDetail detail) {
  FilterNeed n;
  // kGapOnly ranks every rejected node: no string at all (explain.h allows an empty reason).
  if (detail == ExplainDetail::kFull) n.reason = reason;
  if (a.request > a.allocatable) {  // no amount of preemption helps here
    n.gap = 1.0;
    if (detail == ExplainDetail::kFull) {
      n.need = "requests " + FormatQuantity(a.resource, a.request) + ", allocatable " +
               FormatQuantity(a.resource, a.allocatable) + ": no node of this size can fit it";
    }
    return n;
  }
  const int64_t shortfall = SatSub(a.request, SatSub(a.allocatable, a.in_use));
  n.gap =
      a.request <= 0
          ? 1.0
          : std::clamp(static_cast<double>(shortfall) / static_cast<double>(a.request), 0.0, 1.0);
  if (detail == ExplainDetail::kFull) {
    n.need = "requests " + FormatQuantity(a.resource, a.request) + ", allocatable " +
             FormatQuantity(a.resource, a.allocatable) + ", in use " +
             FormatQuantity(a.resource, a.in_use);
    // A node rejected only with the nominated pods counted fits as it is.
    if (shortfall > 0) n.need += ": short by " + FormatQuantity(a.resource, shortfall);
  }
  return n;
}

}  // namespace

std::string FormatQuantity(std::string_view resource, int64_t amount) {
  const bool negative = amount < 0;
  const uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(amount) : static_cast<uint64_t>(amount);
  std::string text;
  if (resource == "cpu") {
    text = Cpu(magnitude);
  } else if (resource == "memory" || resource == "ephemeral-storage" ||
             framework::IsHugePageResourceName(resource)) {
    text = Bytes(magnitude);
  } else {
    text = std::to_string(magnitude);
  }
  return negative ? "-" + text : text;
}

void ExplainInsufficient(const PreFilterState& s, const framework::NodeInfo& node,
                         const framework::Status& rejection, ExplainDetail detail,
                         std::vector<FilterNeed>* out) {
  const framework::Resource& alloc = node.allocatable();
  const framework::Resource& used = node.requested();
  for (const std::string& reason : rejection.reasons()) {
    if (reason == kErrReasonTooManyPods) {
      FilterNeed n{std::string(), std::string(), 1.0};
      if (detail == ExplainDetail::kFull) {
        n.reason = reason;
        n.need = "allowed " + std::to_string(alloc.allowed_pod_number) +
                 (alloc.allowed_pod_number == 1 ? " pod" : " pods") + ", running " +
                 std::to_string(node.pods().size());
      }
      out->push_back(std::move(n));
    } else if (reason == kErrReasonInsufficientCPU) {
      out->push_back(
          Insufficient(reason, {"cpu", s.milli_cpu, alloc.milli_cpu, used.milli_cpu}, detail));
    } else if (reason == kErrReasonInsufficientMemory) {
      out->push_back(Insufficient(reason, {"memory", s.memory, alloc.memory, used.memory}, detail));
    } else if (reason == kErrReasonInsufficientEphemeralStorage) {
      out->push_back(Insufficient(reason,
                                  {"ephemeral-storage", s.ephemeral_storage,
                                   alloc.ephemeral_storage, used.ephemeral_storage},
                                  detail));
    } else {
      for (const ScalarRequest& sr : s.scalars) {
        if (sr.reason != reason) continue;
        out->push_back(Insufficient(
            reason, {sr.name, sr.quantity, alloc.Scalar(sr.name), used.Scalar(sr.name)}, detail));
        break;
      }
    }
  }
}

}  // namespace berth::plugins::node_resources_fit
