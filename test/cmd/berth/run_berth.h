#pragma once
// Runs the built `berth` binary as a user would (tests of the command line and the examples).
// Needs BERTH_BINARY defined by the test's CMake target.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace berth::testing {

struct Run {
  int code = -1;  // exit code; -1 when berth did not exit normally
  std::string out;
  std::string err;
};

// Runs `berth ARGS` with stdout and stderr captured.
inline Run Berth(const std::string& args) {
  static int n = 0;
  // The pid too: ctest runs test cases in parallel processes, each counting from 0.
  const std::string err_file =
      ::testing::TempDir() + "/berth_err_" + std::to_string(getpid()) + "_" + std::to_string(n++);
  const std::string cmd = std::string(BERTH_BINARY) + " " + args + " 2>" + err_file;
  Run r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t got;
  while ((got = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), got);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  r.err.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

}  // namespace berth::testing
