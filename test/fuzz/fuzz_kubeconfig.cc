// The kubeconfig reader: the bytes are written to a file in a private temp directory and read by
// client::LoadKubeconfig (its current-context, then a context named "fuzz"); DecodeBase64 (used
// for the *-data fields) gets the raw bytes too.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "informers/client/config.h"
#include "test/fuzz/fuzz_common.h"

namespace {

const std::string& KubeconfigPath() {
  static const std::string path = [] {
    char dir[] = "/tmp/berth-fuzz-kubeconfig-XXXXXX";
    if (mkdtemp(dir) == nullptr) abort();
    return std::string(dir) + "/config";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)berth::client::DecodeBase64(berth::fuzz::AsView(data, size));
  const std::string& path = KubeconfigPath();
  FILE* f = fopen(path.c_str(), "wb");
  if (f == nullptr) abort();
  if (size > 0 && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  (void)berth::client::LoadKubeconfig(path);
  (void)berth::client::LoadKubeconfig(path, "fuzz");
  return 0;
}
