#pragma once
// A 50 MB extender answer for the size tests: the three nodes echoed back (as to an extender that
// is not nodeCacheCapable), each with ~17 MB of annotations. Read into a tree, such an answer took
// gigabytes (1.8 GB through `berth run`'s extender client).

#include <string>

namespace berth::testing {

inline std::string FiftyMegabyteAnswer() {
  std::string body = R"({"Nodes":{"items":[)";
  for (int n = 1; n <= 3; ++n) {
    if (n > 1) body += ",";
    body += R"({"metadata":{"name":"n)" + std::to_string(n) + R"(","annotations":{)";
    for (int i = 0; i < 750000; ++i) {
      if (i > 0) body += ",";
      body += "\"k" + std::to_string(i) + "\":\"vvvvvvvvvvvv\"";
    }
    body += "}}}";
  }
  body += R"(]},"FailedNodes":{},"Error":""})";
  return body;
}

}  // namespace berth::testing
