#pragma once
// Reading a whole file the user named (config, Policy, kubeconfig, token, cluster file) with one
// copy and a size limit: a directory, /dev/zero or a runaway file is an error, never an abort.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/result.h"

namespace berth {

inline constexpr size_t kMaxConfigFileBytes = size_t{16} << 20;    // configs, kubeconfigs, ...
inline constexpr size_t kMaxClusterFileBytes = size_t{256} << 20;  // simulate's cluster dumps

// The file's bytes. The error is the reason alone ("No such file or directory", "is a
// directory", "larger than 16 MiB"), for the caller to prefix with the path; code kNotFound when
// the file does not exist.
inline Result<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return Error{std::strerror(err), err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kInvalid};
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error{"is a directory"};
  }
  auto too_large = [&] { return Error{"larger than " + std::to_string(max_bytes >> 20) + " MiB"}; };
  std::string out;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<size_t>(st.st_size) > max_bytes) return too_large();
    out.reserve(static_cast<size_t>(st.st_size));
  }
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{std::strerror(errno)};
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) return too_large();
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace berth
