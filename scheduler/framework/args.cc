#include "scheduler/framework/args.h"

namespace berth::framework {

Result<api::Reader> ReadArgs(const api::Value* args, const std::string& path) {
  BERTH_ASSIGN_OR_RETURN(api::Reader reader, api::Reader::Of(args, path, api::kStrict));
  reader.Ignore("apiVersion");
  reader.Ignore("kind");
  return reader;
}

Ok NoArgs(const api::Value* args, const std::string& path) {
  BERTH_ASSIGN_OR_RETURN(api::Reader reader, ReadArgs(args, path));
  return reader.Done();
}

}  // namespace berth::framework
