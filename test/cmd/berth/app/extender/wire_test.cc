// The extender answers berth reads (DecodeFilterResult, DecodeHostPriorityList,
// DecodeBindingResult), decoded from an event stream, against the tree-based decoders they
// replaced (kept here as the reference): the same results and the same error texts for tricky
// documents (letter case, duplicate keys, wrong types, syntax errors) and for thousands of
// generated ones, including the fuzz target's seed corpus.

#include "cmd/berth/app/extender/wire.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "api/json/parse.h"
#include "test/cmd/berth/app/extender/big_answer.h"

namespace berth::extenders {
namespace {

using api::Value;

// ---- the tree-based decoders (cmd/berth/app/extender/wire.cc before the streaming decoder) ----
namespace reference {

Error Want(std::string_view field, std::string_view want, const Value& got) {
  return Error{std::string(field) + ": want " + std::string(want) + ", got " +
               std::string(got.TypeName())};
}

Result<std::optional<std::vector<std::string>>> StringArray(const Value* v,
                                                            std::string_view field) {
  std::optional<std::vector<std::string>> out;
  if (v == nullptr || v->IsNull()) return out;
  if (!v->IsArray()) return Want(field, "an array of node names", *v);
  out.emplace();
  for (const Value& item : v->AsArray()) {
    if (!item.IsString()) return Want(field, "an array of node names", item);
    out->push_back(item.AsString());
  }
  return out;
}

Result<std::optional<std::vector<Value>>> NodeItems(const Value* v, std::string_view field) {
  std::optional<std::vector<Value>> out;
  if (v == nullptr || v->IsNull()) return out;
  if (!v->IsObject()) return Want(field, "a NodeList object", *v);
  out.emplace();
  const Value* items = FindFold(*v, "items");
  if (items == nullptr || items->IsNull()) return out;
  if (!items->IsArray()) return Want(std::string(field) + ".items", "an array", *items);
  for (const Value& item : items->AsArray()) {
    const Value* meta = item.IsObject() ? item.Find("metadata") : nullptr;
    const Value* name = meta != nullptr && meta->IsObject() ? meta->Find("name") : nullptr;
    if (name == nullptr || !name->IsString() || name->AsString().empty()) {
      return Error{std::string(field) + ".items: a node without metadata.name"};
    }
    out->push_back(item);
  }
  return out;
}

Result<std::map<std::string, std::string>> FailedMap(const Value* v, std::string_view field) {
  std::map<std::string, std::string> out;
  if (v == nullptr || v->IsNull()) return out;
  if (!v->IsObject()) return Want(field, "an object of node name -> reason", *v);
  for (const auto& [node, reason] : v->AsObject()) {
    if (!reason.IsString()) return Want(std::string(field) + "." + node, "a string", reason);
    out[node] = reason.AsString();
  }
  return out;
}

Result<Value> ParseObject(std::string_view body, std::string_view what) {
  auto v = api::json::ParseJson(body);
  if (!v.ok()) return Error{"malformed " + std::string(what) + ": " + v.error()};
  if (!v->IsObject()) return Want(what, "a JSON object", *v);
  return std::move(*v);
}

Result<FilterResult> DecodeFilterResult(std::string_view body) {
  auto v = ParseObject(body, "ExtenderFilterResult");
  if (!v.ok()) return Error{v.error()};
  FilterResult out;
  auto names = StringArray(FindFold(*v, "NodeNames"), "NodeNames");
  if (!names.ok()) return Error{names.error()};
  out.node_names = std::move(*names);
  auto items = NodeItems(FindFold(*v, "Nodes"), "Nodes");
  if (!items.ok()) return Error{items.error()};
  if (*items) {
    out.nodes.emplace();
    for (const Value& item : **items) {
      out.nodes->push_back(item.Find("metadata")->Find("name")->AsString());
    }
  }
  auto failed = FailedMap(FindFold(*v, "FailedNodes"), "FailedNodes");
  if (!failed.ok()) return Error{failed.error()};
  out.failed_nodes = std::move(*failed);
  auto unresolvable =
      FailedMap(FindFold(*v, "FailedAndUnresolvableNodes"), "FailedAndUnresolvableNodes");
  if (!unresolvable.ok()) return Error{unresolvable.error()};
  out.failed_and_unresolvable_nodes = std::move(*unresolvable);
  if (const Value* err = FindFold(*v, "Error"); err != nullptr && !err->IsNull()) {
    if (!err->IsString()) return Want("Error", "a string", *err);
    out.error = err->AsString();
  }
  return out;
}

Result<std::vector<HostPriority>> DecodeHostPriorityList(std::string_view body) {
  auto v = api::json::ParseJson(body);
  if (!v.ok()) return Error{"malformed HostPriorityList: " + v.error()};
  std::vector<HostPriority> out;
  if (v->IsNull()) return out;
  if (!v->IsArray()) return Want("HostPriorityList", "an array", *v);
  for (const Value& item : v->AsArray()) {
    if (!item.IsObject()) return Want("HostPriorityList item", "an object", item);
    HostPriority hp;
    const Value* host = FindFold(item, "Host");
    if (host == nullptr || !host->IsString()) {
      return Error{"HostPriorityList: an item without a Host string"};
    }
    hp.host = host->AsString();
    if (const Value* score = FindFold(item, "Score"); score != nullptr && !score->IsNull()) {
      if (!score->IsInt()) return Want("Score of host \"" + hp.host + "\"", "an integer", *score);
      hp.score = score->AsInt();
    }
    out.push_back(std::move(hp));
  }
  return out;
}

Result<std::string> DecodeBindingResult(std::string_view body) {
  auto v = ParseObject(body, "ExtenderBindingResult");
  if (!v.ok()) return Error{v.error()};
  const Value* err = FindFold(*v, "Error");
  if (err == nullptr || err->IsNull()) return std::string();
  if (!err->IsString()) return Want("Error", "a string", *err);
  return err->AsString();
}

}  // namespace reference

// One line per outcome, so that a mismatch prints both sides readably.
std::string Show(const Result<FilterResult>& r) {
  if (!r.ok()) return "error: " + r.error();
  std::ostringstream o;
  auto names = [&](const std::optional<std::vector<std::string>>& v) {
    if (!v) return o << "null", void();
    o << "[";
    for (const auto& n : *v) o << n << ",";
    o << "]";
  };
  o << "names=";
  names(r->node_names);
  o << " nodes=";
  names(r->nodes);
  for (const auto& [k, v] : r->failed_nodes) o << " failed " << k << "=" << v;
  for (const auto& [k, v] : r->failed_and_unresolvable_nodes) o << " unres " << k << "=" << v;
  o << " error=" << r->error;
  return o.str();
}

std::string Show(const Result<std::vector<HostPriority>>& r) {
  if (!r.ok()) return "error: " + r.error();
  std::ostringstream o;
  for (const auto& hp : *r) o << hp.host << "=" << hp.score << ";";
  return o.str();
}

std::string Show(const Result<std::string>& r) {
  return r.ok() ? "ok: " + *r : "error: " + r.error();
}

void ExpectSame(std::string_view body) {
  EXPECT_EQ(Show(DecodeFilterResult(body)), Show(reference::DecodeFilterResult(body))) << body;
  EXPECT_EQ(Show(DecodeHostPriorityList(body)), Show(reference::DecodeHostPriorityList(body)))
      << body;
  EXPECT_EQ(Show(DecodeBindingResult(body)), Show(reference::DecodeBindingResult(body))) << body;
}

TEST(WireAnswers, TrickyDocumentsDecodeAsTheTreeDecoderDid) {
  const char* docs[] = {
      "",
      "null",
      "7",
      "\"x\"",
      "[]",
      "{}",
      "{\"x\":1,}",
      R"({"NodeNames":["a","b"],"FailedNodes":{"c":"full"},"Error":""})",
      R"({"nodenames":["a"],"FAILEDNODES":{"n2":"no disk"},"failedAndUnresolvableNodes":{"n3":"gone"},"error":""})",
      R"({"NodeNames":"a"})",
      R"({"NodeNames":["a",1]})",
      R"({"NodeNames":["a",{"x":[1]}]})",
      R"({"NodeNames":null,"Nodes":null})",
      R"({"Nodes":{"items":[{"metadata":{"name":"n1"}},{"metadata":{"name":"n2"},"spec":{}}]}})",
      R"({"Nodes":{"ITEMS":[{"metadata":{"name":"n1"}}]}})",
      R"({"Nodes":{"items":null}})",
      R"({"Nodes":{}})",
      R"({"Nodes":[]})",
      R"({"Nodes":{"items":{}}})",
      R"({"Nodes":{"items":[1]}})",
      R"({"Nodes":{"items":[{"metadata":{"name":""}}]}})",
      R"({"Nodes":{"items":[{"Metadata":{"name":"n1"}}]}})",
      R"({"Nodes":{"items":[{"metadata":{"Name":"n1"}}]}})",
      R"({"Nodes":{"items":[{"metadata":{"name":"a"},"metadata":{}}]}})",
      R"({"Nodes":{"items":[{"metadata":{},"metadata":{"name":"a"}}]}})",
      R"({"Nodes":{"items":[{"metadata":{"name":"a","name":7}}]}})",
      R"({"Nodes":{"items":[{"metadata":{"name":7,"name":"b"}}]}})",
      R"({"Nodes":{"items":[{"metadata":"x"}]}})",
      R"({"nodes":{"items":[{"metadata":{"name":"a"}}]},"NODES":{"items":[{"metadata":{"name":"b"}}]}})",
      R"({"nodes":{"items":[{"metadata":{"name":"a"}}]},"Nodes":{"items":[{"metadata":{"name":"b"}}]}})",
      R"({"nodes":1,"NODES":{"items":[]},"nodes":{"items":[{"metadata":{"name":"c"}}]}})",
      R"({"NodeNames":["a"],"NodeNames":["b"]})",
      R"({"NodeNames":["a"],"nodeNames":["b"],"NodeNames":7})",
      R"({"nodenames":["a"],"NODENAMES":["b"],"nodenames":["c"]})",
      R"({"FailedNodes":{"a":"x","a":7}})",
      R"({"FailedNodes":{"a":7,"b":"y","a":"x"}})",
      R"({"FailedNodes":{"b":[],"a":7}})",
      R"({"FailedNodes":[]})",
      R"({"FailedNodes":"x","NodeNames":5})",
      R"({"FailedAndUnresolvableNodes":{"z":null}})",
      R"({"Error":5})",
      R"({"Error":"boom","error":"other"})",
      R"({"error":"boom","ERROR":"other"})",
      R"({"Error":{"a":1}})",
      R"({"Error":null})",
      R"([{"Host":"n1","Score":3},{"host":"n2","SCORE":10}])",
      R"([{"Host":"n1","Score":3.5}])",
      R"([{"Host":"n1","Score":1e2}])",
      R"([{"Host":"n1","Score":9223372036854775808}])",
      R"([{"Host":"n1","Score":-4}])",
      R"([{"Host":"n1","Score":null}])",
      R"([{"Host":"n1"}])",
      R"([{"Score":1}])",
      R"([{"Host":1}])",
      R"([{"Host":"a","Host":"b"}])",
      R"([{"host":"a","HOST":"b","host":"c"}])",
      R"([{"Host":"a"},7,{"Score":1}])",
      R"([{"Score":1},7])",
      R"([7,{"Score":1}])",
      R"([{"Host":"a","Score":"1"},[1]])",
      R"([null])",
      R"({"a":[[[[[]]]]]})",
      R"({"NodeNames":["a"]} x)",
      "{\"NodeNames\":[\"a\xff\"]}",
      R"({"NodeNames":[1e999]})",
      R"({"Score":1e400})",
  };
  for (const char* doc : docs) ExpectSame(doc);
  ExpectSame(std::string("{\"NodeNames\":[\"a\0\"]}", 19));
  std::string deep(600, '[');
  ExpectSame("{\"NodeNames\":" + deep);
  ExpectSame(std::string(511, '[') + std::string(511, ']'));
  ExpectSame(std::string(513, '[') + std::string(513, ']'));
}

// Random documents built from the answers' own vocabulary (keys in several letter cases,
// duplicates, every JSON type where any could appear), some cut short or with a byte changed.
class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  std::string Document() {
    std::string out;
    if (Pick(4) == 0) {
      Array(&out, 0, [&](std::string* o, int d) { PriorityItem(o, d); });
    } else {
      Object(&out, 0, kRootKeys,
             [&](std::string* o, const std::string& key, int d) { RootMember(o, key, d); });
    }
    switch (Pick(8)) {
      case 0:
        out.resize(Pick(static_cast<int>(out.size()) + 1));
        break;
      case 1:
        if (!out.empty()) out[Pick(static_cast<int>(out.size()))] = "\"{}[],:x1\\"[Pick(10)];
        break;
      default:
        break;
    }
    return out;
  }

 private:
  using Keys = std::vector<std::string>;
  inline static const Keys kRootKeys = {"NodeNames",
                                        "nodenames",
                                        "NODENAMES",
                                        "Nodes",
                                        "nodes",
                                        "FailedNodes",
                                        "failednodes",
                                        "FailedAndUnresolvableNodes",
                                        "failedAndUnresolvableNodes",
                                        "Error",
                                        "error",
                                        "ERROR",
                                        "x"};
  inline static const Keys kNodeListKeys = {"items", "Items", "ITEMS", "metadata", "kind"};
  inline static const Keys kItemKeys = {"metadata", "Metadata", "spec", "name"};
  inline static const Keys kMetaKeys = {"name", "Name", "labels"};
  inline static const Keys kNodeKeys = {"n1", "n2", "n3", "n1"};
  inline static const Keys kPriorityKeys = {"Host", "host", "HOST", "Score", "score", "x"};

  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

  void Any(std::string* o, int depth) {
    switch (depth > 3 ? Pick(6) : Pick(8)) {
      case 0:
        *o += "null";
        break;
      case 1:
        *o += "true";
        break;
      case 2:
        *o += std::to_string(Pick(20) - 5);
        break;
      case 3:
        *o += Pick(2) ? "2.5" : "1e3";
        break;
      case 4:
        *o += Pick(3) ? "\"n" + std::to_string(Pick(4)) + "\"" : "\"\"";
        break;
      case 5:
        *o += "9223372036854775808";
        break;
      case 6:
        Array(o, depth + 1, [&](std::string* oo, int d) { Any(oo, d); });
        break;
      default:
        Object(o, depth + 1, kMetaKeys,
               [&](std::string* oo, const std::string&, int d) { Any(oo, d); });
        break;
    }
  }

  template <typename F>
  void Array(std::string* o, int depth, F item) {
    *o += "[";
    const int n = Pick(5);
    for (int i = 0; i < n; ++i) {
      if (i > 0) *o += ",";
      item(o, depth + 1);
    }
    *o += "]";
  }

  template <typename F>
  void Object(std::string* o, int depth, const Keys& keys, F member) {
    *o += "{";
    const int n = Pick(6);
    for (int i = 0; i < n; ++i) {
      if (i > 0) *o += ",";
      const std::string& key = keys[Pick(static_cast<int>(keys.size()))];
      *o += "\"" + key + "\":";
      member(o, key, depth + 1);
    }
    *o += "}";
  }

  void RootMember(std::string* o, const std::string& key, int depth) {
    if (Pick(5) == 0) return Any(o, depth);
    const std::string k = [&] {
      std::string l = key;
      for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return l;
    }();
    if (k == "nodenames") {
      Array(o, depth, [&](std::string* oo, int d) {
        if (Pick(6) == 0) return Any(oo, d);
        *oo += "\"n" + std::to_string(Pick(4)) + "\"";
      });
    } else if (k == "nodes") {
      Object(o, depth, kNodeListKeys, [&](std::string* oo, const std::string&, int d) {
        if (Pick(5) == 0) return Any(oo, d);
        Array(oo, d, [&](std::string* o3, int d3) { NodeItem(o3, d3); });
      });
    } else if (k == "failednodes" || k == "failedandunresolvablenodes") {
      Object(o, depth, kNodeKeys, [&](std::string* oo, const std::string&, int d) {
        if (Pick(6) == 0) return Any(oo, d);
        *oo += "\"reason " + std::to_string(Pick(3)) + "\"";
      });
    } else {
      if (Pick(2)) return Any(o, depth);
      *o += "\"boom\"";
    }
  }

  void NodeItem(std::string* o, int depth) {
    if (Pick(8) == 0) return Any(o, depth);
    Object(o, depth, kItemKeys, [&](std::string* oo, const std::string&, int d) {
      if (Pick(4) == 0) return Any(oo, d);
      Object(oo, d, kMetaKeys, [&](std::string* o3, const std::string&, int d3) {
        if (Pick(4) == 0) return Any(o3, d3);
        *o3 += Pick(6) ? "\"n" + std::to_string(Pick(4)) + "\"" : "\"\"";
      });
    });
  }

  void PriorityItem(std::string* o, int depth) {
    if (Pick(8) == 0) return Any(o, depth);
    Object(o, depth, kPriorityKeys, [&](std::string* oo, const std::string& key, int d) {
      if (Pick(4) == 0) return Any(oo, d);
      if (key == "Host" || key == "host" || key == "HOST") {
        *oo += "\"n" + std::to_string(Pick(4)) + "\"";
      } else {
        *oo += std::to_string(Pick(12));
      }
    });
  }

  std::mt19937 rng_;
};

TEST(WireAnswers, GeneratedDocumentsDecodeAsTheTreeDecoderDid) {
  Generator gen(26);
  for (int i = 0; i < 20000; ++i) {
    const std::string doc = gen.Document();
    ExpectSame(doc);
    if (::testing::Test::HasFailure()) break;  // one readable mismatch, not thousands
  }
}

TEST(WireAnswers, FuzzCorpusDecodesAsTheTreeDecoderDid) {
  const std::filesystem::path dir =
      std::filesystem::path(BERTH_SOURCE_DIR) / "test/fuzz/corpus/fuzz_extender_wire";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), {});
    if (data.empty()) continue;
    ExpectSame(std::string_view(data).substr(1));
    ++n;
  }
  EXPECT_GT(n, 0);
}

// The process's address space now (VmSize), in bytes; 0 if unknown.
size_t AddressSpace() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

// A 56 MB ExtenderFilterResult (three nodes echoed back, ~17 MB of annotations each) decodes
// within 256 MiB of address space beyond the body: the tree of such a document took 640 MB more
// (1.8 GB through `berth run`'s extender client). Run in a child under RLIMIT_AS, so that running
// out is an exit code, not this process's end.
TEST(WireAnswers, AFiftyMegabyteAnswerDecodesInMemoryProportionalToItsResult) {
#if defined(__SANITIZE_ADDRESS__) || defined(BERTH_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space; no RLIMIT_AS fits it";
#endif
  const std::string body = testing::FiftyMegabyteAnswer();
  ASSERT_GT(body.size(), size_t{50} << 20);
  const size_t now = AddressSpace();
  ASSERT_GT(now, 0u);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlimit limit{now + (size_t{256} << 20), now + (size_t{256} << 20)};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(4);
    try {
      auto r = DecodeFilterResult(body);
      _exit(r.ok() && r->nodes && r->nodes->size() == 3 ? 0 : 3);
    } catch (const std::bad_alloc&) {
      _exit(2);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: out of memory, 3: wrong result, 4: no limit set";
}

}  // namespace
}  // namespace berth::extenders
