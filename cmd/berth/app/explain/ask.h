#pragma once
// Asking a running berth for its diagnosis of a pod (GET /debug/explain/{namespace}/{pod} on its
// secure port, scheduler/diagnosis/json.h's schema): through the API server's pod proxy to the
// Lease holder, through the service proxy to the chart's Service, or straight to a URL.
//
// Every failure to get an answer from the scheduler itself (no Lease, no holder, connection
// refused, the proxy's 503, the API server's 404 for the pod or Service, 401/403, any 5xx, a
// server that does not serve /debug/explain) is kUnreachable with one line saying why, so that
// the caller can fall back to the offline re-evaluation. Only the scheduler's own 404 (its Status
// body, no `details`) is kNotFound. Thread: the caller's.

#include <string>

#include "api/value.h"
#include "cmd/berth/app/explain/options.h"
#include "informers/client/kube_client.h"
#include "scheduler/diagnosis/record.h"

namespace berth::explain {

struct Answer {
  enum class Kind {
    kFound,        // record and json are set
    kNotFound,     // the scheduler has no diagnosis: message is its own
    kUnreachable,  // no answer from the scheduler: message says why
    kInvalid,      // the scheduler answered 200 with something that is not a diagnosis
  };
  Kind kind = Kind::kUnreachable;
  diagnosis::Record record;
  api::Value json;
  std::string message;
  // Who answered, for the text's source line: "the scheduler <identity or URL>".
  std::string source;
};

// The path of the diagnosis on berth's secure port: "/debug/explain/<ns>/<pod>".
std::string ExplainPath(const std::string& ns, const std::string& pod);
// The API server's proxy to a pod's port: "/api/v1/namespaces/<ns>/pods/https:<pod>:<port>/proxy".
std::string PodProxyPrefix(const std::string& ns, const std::string& pod, int port);
// ... and to a Service's named port: "/api/v1/namespaces/<ns>/services/https:<svc>:<port>/proxy".
std::string ServiceProxyPrefix(const std::string& ns, const std::string& service,
                               const std::string& port);
// The pod of a leader election identity ("<hostname>_<uuid>"; a pod's hostname is its name).
std::string PodOfIdentity(const std::string& identity);
// The leader a standby names in its 404 ("this berth is not the leader; the leader is <id>"),
// or "" for any other message.
std::string LeaderInMessage(const std::string& message);

// The Lease's spec.holderIdentity. Errors (one line): `lease berth-system/berth-scheduler not
// found; set --lease-namespace, --lease-name`, `lease ...: no holder (no berth is leading)`,
// `lease ...: HTTP 403: <message>`, a connection error.
Result<std::string> LeaseHolder(client::KubeClient& api, const std::string& ns,
                                const std::string& name);

// GET `path` (no retries: an unreachable scheduler is reported at once) and classify the answer
// as the header comment says. `source` is copied to the answer.
Answer Fetch(client::KubeClient& c, const std::string& path, const std::string& source);

// The default and --via-service ways: through `api` (the API server), for pod `ns`/`pod`.
// A standby's "not the leader" 404 (the Service balances over every replica; the Lease may
// have changed hands since it was read) is followed once to the named leader's pod.
Answer AskThroughApiServer(client::KubeClient& api, const ExplainOptions& o, const std::string& ns,
                           const std::string& pod);

}  // namespace berth::explain
