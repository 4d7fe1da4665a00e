#pragma once
// The readable form of a diagnosis (`berth explain`'s default output): a header, the nearest
// nodes with what each would need, preemption's verdict, and every rejected node's reasons
// grouped by reason (so 5,000 nodes with one reason take one line).
//
// Every text taken from the record or the source (names, reasons, messages, a Lease holder
// identity: text users and API servers control) is printed through OneLine (base/strings.h), so
// a control character (ESC, CR, LF, BEL) or invalid UTF-8 in it is escaped (\x1b, \r, \n, \x07,
// \xff) and cannot drive the terminal or forge lines.

#include <string>

#include "scheduler/diagnosis/record.h"

namespace berth::diagnosis {

// `source` names where the answer came from: "the scheduler" (its own record) or a note such
// as "re-evaluation of the current cluster state (offline), not the scheduler's own record".
std::string RenderText(const Record& r, const std::string& source);

}  // namespace berth::diagnosis
