#pragma once
// The JSON form of a diagnosis, one schema for /debug/explain, `berth explain -o json` and
// `berth simulate --explain` (which adds its "scores"):
//
//   {"pod": "ns/p", "uid": "...", "profile": "berth-scheduler",
//    "attempted": "<RFC 3339>", "status": "Unschedulable" | "SchedulerError" | "Scheduled",
//    "message": "<the FailedScheduling text>",           (absent when Scheduled)
//    "node": "<node>",                                    (Scheduled only)
//    "preFilter": {"plugin": "...", "reason": "..."},     (a PreFilter plugin rejected the pod)
//    "filter": {"<node>": "<reasons joined by \", \">"},  (every rejected node)
//    "nearest": [{"node": "...", "preemption": "would fit if ...",   (preemption only)
//                 "failed": [{"plugin": "...", "reason": "...", "need": "..."}]}],
//    "preemption": {"message": "...", "node": "...", "victims": [{"pod": "...", "priority": N}]},
//    "nominatedNode": "...", "evaluatedNodes": N, "feasibleNodes": N}
//
// Absent parts are left out, except "filter" and "nearest", which are always there.

#include "api/value.h"
#include "base/result.h"
#include "scheduler/diagnosis/record.h"

namespace berth::diagnosis {

api::Value ToValue(const Record& r);
// The inverse, for `berth explain` reading a scheduler's answer. Error names the field.
Result<Record> FromValue(const api::Value& v);

}  // namespace berth::diagnosis
