#include "cmd/berth/app/activity.h"

#include <algorithm>
#include <cstring>
#include <exception>

namespace berth::app {
namespace {

char current[256] = "";

void Copy(char (&to)[256], std::string_view from) {
  const size_t n = std::min(from.size(), sizeof(to) - 1);
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

}  // namespace

Doing::Doing(std::string_view what) : exceptions_(std::uncaught_exceptions()) {
  Copy(previous_, current);
  Copy(current, what);
}

Doing::~Doing() {
  // Unwinding: keep naming what failed.
  if (std::uncaught_exceptions() > exceptions_) return;
  Copy(current, previous_);
}

const char* CurrentActivity() { return current; }

}  // namespace berth::app
