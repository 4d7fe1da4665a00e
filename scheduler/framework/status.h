#pragma once
// Status: the outcome of a plugin call, with upstream's codes and reason strings.
//   kSuccess                      ok (a default-constructed Status is Success; it allocates
//   nothing) kError                        internal error: aborts the cycle; the pod backs off
//   (SchedulerError) kUnschedulable                rejected; preemption (PostFilter) may help
//   kUnschedulableAndUnresolvable rejected; preemption would not help on this node
//   kWait                         Permit only: hold the pod as a waiting pod
//   kSkip                         PreFilter/PreScore: skip the coupled Filter/Score; Bind: not mine
//   kPending                      fine so far, but wait for an external actor (no backoff penalty)
// Message() joins the reasons with ", " as upstream's Status.Message() does.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::framework {

enum class Code : uint8_t {
  kSuccess = 0,
  kError = 1,
  kUnschedulable = 2,
  kUnschedulableAndUnresolvable = 3,
  kWait = 4,
  kSkip = 5,
  kPending = 6,
};

std::string_view CodeName(Code c);

// A Success status is one byte plus a null pointer: constructing, moving and destroying it in
// the per-node hot path costs nothing. Failures carry their reasons and plugin out of line,
// shared between copies: a Filter that rejects thousands of nodes for the same reason returns
// copies of one static Status (a reference count each, no allocation):
//   static const Status kTooBig = Status::Unschedulable(kReason).WithPlugin(kName);
//   return kTooBig;
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string reason) : code_(code) {
    if (!reason.empty()) Mutable().reasons.push_back(std::move(reason));
  }
  Status(Code code, std::vector<std::string> reasons) : code_(code) {
    if (!reasons.empty()) Mutable().reasons = std::move(reasons);
  }
  // Copies share the reasons (copy on write): a plugin can keep a rejection it returns often
  // in a static Status (see Shared) and return copies of it without allocating.
  Status(const Status&) = default;
  Status& operator=(const Status&) = default;
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Success() { return Status(); }
  static Status Error(std::string msg) { return Status(Code::kError, std::move(msg)); }
  static Status Unschedulable(std::string reason) {
    return Status(Code::kUnschedulable, std::move(reason));
  }
  static Status Unresolvable(std::string reason) {
    return Status(Code::kUnschedulableAndUnresolvable, std::move(reason));
  }
  static Status Skip() { return Status(Code::kSkip, std::string()); }
  static Status Wait() { return Status(Code::kWait, std::string()); }
  // An Error from Bind saying the pod no longer needs binding: deleted (404), or bound elsewhere
  // or replaced by a pod of the same name (409, confirmed by reading it back). The scheduler's
  // failure handler reports it (FailedScheduling, as upstream) but does not requeue it, as if its
  // re-read of the pod had already found it gone; the informer's delete or update follows.
  static Status PodGone(std::string msg) {
    Status s(Code::kError, std::move(msg));
    s.Mutable().pod_gone = true;
    return s;
  }

  Code code() const { return code_; }
  bool IsSuccess() const { return code_ == Code::kSuccess; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  bool IsWait() const { return code_ == Code::kWait; }
  bool IsError() const { return code_ == Code::kError; }
  bool IsPodGone() const { return rep_ != nullptr && rep_->pod_gone; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending.
  bool IsRejected() const {
    return code_ == Code::kUnschedulable || code_ == Code::kUnschedulableAndUnresolvable ||
           code_ == Code::kPending;
  }

  const std::vector<std::string>& reasons() const;
  std::string Message() const;
  void AppendReason(std::string r) { Mutable().reasons.push_back(std::move(r)); }

  // The plugin that produced a failure (set by the runtime).
  const std::string& plugin() const;
  Status& WithPlugin(std::string_view p) & {
    if (rep_ ? rep_->plugin != p : !p.empty()) Mutable().plugin = p;
    return *this;
  }
  Status&& WithPlugin(std::string_view p) && {
    if (rep_ ? rep_->plugin != p : !p.empty()) Mutable().plugin = p;
    return std::move(*this);
  }

 private:
  struct Rep {
    std::vector<std::string> reasons;
    std::string plugin;
    bool pod_gone = false;  // see PodGone
  };
  Rep& Mutable() {
    if (!rep_) {
      rep_ = std::make_shared<Rep>();
    } else if (rep_.use_count() > 1) {
      rep_ = std::make_shared<Rep>(*rep_);
    }
    return *rep_;
  }

  Code code_ = Code::kSuccess;
  std::shared_ptr<Rep> rep_;
};

}  // namespace berth::framework
