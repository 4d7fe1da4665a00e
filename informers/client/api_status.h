#pragma once
// What the API server said in an error answer: the message of a metav1.Status body, or the body
// itself (shortened to 200 bytes) when it is not one. For log lines and errors.

#include <string>

namespace berth::client {

std::string StatusMessage(const std::string& body);

}  // namespace berth::client
