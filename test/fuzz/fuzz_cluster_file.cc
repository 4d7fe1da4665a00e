// The cluster file of `berth simulate`: simulate::ParseClusterFile (YAML stream of objects).
#include <string>

#include "cmd/berth/app/simulate/cluster_file.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)berth::simulate::ParseClusterFile(std::string(berth::fuzz::AsView(data, size)),
                                          "fuzz-cluster.yaml");
  return 0;
}
