#pragma once
// /debug/flags: the run-time verbosity switch kube-scheduler serves when profiling is enabled
// (k8s.io/apiserver/pkg/server/routes/flags.go with component-base's logs.GlogSetter):
//
//   PUT /debug/flags/v, body "N"  sets -v to N (a non-negative integer; surrounding whitespace is
//                                 not allowed, as strconv.ParseUint): 200 text/plain
//                                 "successfully set klog.logging.verbosity to N\n"; a bad body is
//                                 400 with the parse error
//   other methods on /debug/flags/v   406 "unsupported http method\n"
//   /debug/flags, /debug/flags/...    200 text/html: the index listing "v"
// Anything else is not handled (nullopt). Thread-safe: the level is log::Verbosity().

#include <optional>
#include <string>
#include <string_view>

#include "cmd/berth/app/serving/http_server.h"

namespace berth::run {

std::optional<HttpReply> DebugFlagsRoute(std::string_view method, std::string_view path,
                                         const std::string& body);

}  // namespace berth::run
