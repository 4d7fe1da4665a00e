// Parser micro-benchmarks (Google Benchmark): objects with many keys must parse in linear time,
// and a huge watch event must be cut from its stream in linear time.
// A pod with 100k labels (1.5 MB, under the API server's limit) once took seconds because each
// member was checked against every earlier one. Run:
//   build/test/bench/parse-bench [--benchmark_filter=Json]
// The "BigO" line of each family should read N (linear), and 200k keys well under 0.5 s.
#include <benchmark/benchmark.h>

#include <string>

#include "api/decode.h"
#include "api/json/parse.h"
#include "informers/client/watch_lines.h"

namespace {

std::string JsonObject(int64_t keys) {
  std::string text = "{\"metadata\":{\"labels\":{";
  for (int64_t i = 0; i < keys; ++i) {
    if (i) text += ',';
    text += "\"example.com/key-" + std::to_string(i) + "\":\"v\"";
  }
  return text + "}}}";
}

std::string YamlObject(int64_t keys) {
  std::string text = "metadata:\n  labels:\n";
  for (int64_t i = 0; i < keys; ++i) text += "    example.com/key-" + std::to_string(i) + ": v\n";
  return text;
}

void BM_ParseJsonManyKeys(benchmark::State& state) {
  const std::string text = JsonObject(state.range(0));
  for (auto _ : state) {
    auto v = berth::api::json::ParseJson(text);
    if (!v.ok()) state.SkipWithError(v.error().c_str());
    benchmark::DoNotOptimize(v);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_ParseJsonManyKeys)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 200000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

void BM_ParseYamlManyKeys(benchmark::State& state) {
  const std::string text = YamlObject(state.range(0));
  for (auto _ : state) {
    auto v = berth::api::json::ParseYamlDocuments(text);
    if (!v.ok()) state.SkipWithError(v.error().c_str());
    benchmark::DoNotOptimize(v);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_ParseYamlManyKeys)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 200000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// The whole informer path for one watch event: bytes to a typed Pod.
void BM_DecodePodManyLabels(benchmark::State& state) {
  std::string text = JsonObject(state.range(0));
  text.insert(1, R"("apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c"}]},)");
  text.replace(text.find(R"("metadata":{)"), 12, R"("metadata":{"name":"p","namespace":"ns",)");
  for (auto _ : state) {
    auto v = berth::api::json::ParseJson(text);
    if (!v.ok()) state.SkipWithError(v.error().c_str());
    auto pod = berth::api::DecodePod(*v);
    if (!pod.ok()) state.SkipWithError(pod.error().c_str());
    benchmark::DoNotOptimize(pod);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_DecodePodManyLabels)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 200000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// Cutting a watch stream into lines when one event (N * 64 bytes: 1 MB at 16384, 12.8 MB at
// 200000) arrives in 1 KiB reads. The buffer used to be rescanned from its start on every read,
// quadratic in the event's size (issue 26 item 8).
void BM_WatchLineOneHugeEvent(benchmark::State& state) {
  const std::string event = "{\"x\":\"" + std::string(state.range(0) * 64, 'y') + "\"}\n";
  constexpr size_t kRead = 1024;
  for (auto _ : state) {
    berth::client::WatchLineSplitter lines;
    size_t got = 0;
    auto on_line = [&](std::string_view l) {
      got += l.size();
      return true;
    };
    for (size_t i = 0; i < event.size(); i += kRead) {
      lines.Feed(std::string_view(event).substr(i, kRead), on_line);
    }
    if (got + 1 != event.size()) state.SkipWithError("the event was not delivered whole");
    benchmark::DoNotOptimize(got);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_WatchLineOneHugeEvent)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 200000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace

BENCHMARK_MAIN();
