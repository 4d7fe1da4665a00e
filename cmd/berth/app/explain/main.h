#pragma once
// `berth explain POD`: why is this pod pending? Asks the running berth for its diagnosis (the
// leader through the API server's pod proxy by default, see ask.h), or re-evaluates the pod on a
// live snapshot of the cluster when asked to (--offline) or when the scheduler cannot be reached
// (offline.h), and prints it as text or JSON. Also run as the kubectl plugin `kubectl berth
// explain`.
//
// Exit codes: 0 a diagnosis was printed; 1 there is none (the scheduler's 404, or the pod is
// missing, bound, finished or not berth's), with the reason on stderr; 2 a usage, kubeconfig,
// config or API error, one line on stderr.

namespace berth::explain {

int Main(int argc, char** argv);

}  // namespace berth::explain
