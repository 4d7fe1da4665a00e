#include "scheduler/metrics/fault_metrics.h"

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/registry.h"

namespace berth::metrics {

struct FaultMetrics::Families {
  explicit Families(prometheus::Registry& r)
      : exceptions(prometheus::BuildCounter()
                       .Name("berth_recovered_exceptions_total")
                       .Help("Exceptions that reached the top level of a berth thread, which "
                             "logged them and went on, by thread.")
                       .Register(r)),
        accept_errors(prometheus::BuildCounter()
                          .Name("berth_http_accept_errors_total")
                          .Help("Failed accept() calls on an HTTP listener (for example out of "
                                "file descriptors); accepting backs off from 5ms to 1s.")
                          .Register(r)),
        refused(prometheus::BuildCounter()
                    .Name("berth_http_connections_refused_total")
                    .Help("Connections closed unanswered because --max-connections were "
                          "already open, by listener.")
                    .Register(r)) {}

  prometheus::Family<prometheus::Counter>& Of(Fault f) {
    switch (f) {
      case Fault::kRecoveredException:
        return exceptions;
      case Fault::kAcceptError:
        return accept_errors;
      case Fault::kConnectionRefused:
        return refused;
    }
    return exceptions;
  }
  static const char* Label(Fault f) {
    return f == Fault::kRecoveredException ? "thread" : "listener";
  }

  prometheus::Family<prometheus::Counter>& exceptions;
  prometheus::Family<prometheus::Counter>& accept_errors;
  prometheus::Family<prometheus::Counter>& refused;
};

FaultMetrics::FaultMetrics(prometheus::Registry& registry)
    : f_(std::make_unique<Families>(registry)) {}

FaultMetrics::~FaultMetrics() = default;

void FaultMetrics::Sync() {
  std::lock_guard lock(mu_);
  for (const FaultCount& c : FaultCounts()) {
    uint64_t& seen = exported_[{c.fault, c.where}];
    if (c.count == seen) continue;
    f_->Of(c.fault)
        .Add({{Families::Label(c.fault), c.where}})
        .Increment(static_cast<double>(c.count - seen));
    seen = c.count;
  }
}

}  // namespace berth::metrics
