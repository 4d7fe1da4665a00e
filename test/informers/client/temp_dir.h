#pragma once
// TempDir: a fresh directory under $TMPDIR, removed with its contents on destruction.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace berth::client::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "berth-client-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  // Writes `contents` to path()/name (creating parent directories); returns the full path.
  std::string Write(const std::string& name, const std::string& contents) const {
    std::filesystem::path p = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << contents;
    return p.string();
  }

 private:
  std::string path_;
};

}  // namespace berth::client::testing
