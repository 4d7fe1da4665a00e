// A YAML stream -> api::Values -> typed objects: DecodeObject dispatches on `kind`, the
// storage.deckhouse.io kinds go to DecodeReplicatedStorageObject.
#include "api/decode.h"
#include "api/json/parse.h"
#include "test/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto docs = berth::api::json::ParseYamlDocuments(berth::fuzz::AsView(data, size));
  if (!docs.ok()) return 0;
  for (const auto& doc : *docs) {
    if (berth::api::IsReplicatedStorageKind(doc)) {
      (void)berth::api::DecodeReplicatedStorageObject(doc);
    } else {
      (void)berth::api::DecodeObject(doc);
    }
    (void)berth::api::json::ToJson(doc);
  }
  return 0;
}
