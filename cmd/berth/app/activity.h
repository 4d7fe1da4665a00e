#pragma once
// What a subcommand is doing, for the one line `berth <command>: out of memory (while <what>)`
// that main prints when std::bad_alloc reaches it. The text is copied into a fixed buffer when
// set, so that reading it back after an allocation failed allocates nothing.
//
// Set and read on the main thread only (the subcommands' Main functions and main.cc).

#include <string_view>

namespace berth::app {

// Marks `what` ("reading the cluster file big.yaml") as the current activity for its lifetime;
// the previous one comes back when it ends normally. When it ends by an exception unwinding the
// stack (std::bad_alloc on its way to main), `what` stays, so that main can still name it.
// Texts longer than the buffer are cut.
class Doing {
 public:
  explicit Doing(std::string_view what);
  ~Doing();
  Doing(const Doing&) = delete;
  Doing& operator=(const Doing&) = delete;

 private:
  char previous_[256];
  int exceptions_;  // std::uncaught_exceptions() when made
};

// The current activity, "" when none.
const char* CurrentActivity();

}  // namespace berth::app
