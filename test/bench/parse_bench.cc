// Parser micro-benchmarks (Google Benchmark): objects with many keys must parse in linear time.
// A pod with 100k labels (1.5 MB, under the API server's limit) once took seconds because each
// member was checked against every earlier one. Run:
//   build/test/bench/parse-bench [--benchmark_filter=Json]
// The "BigO" line of each family should read N (linear), and 200k keys well under 0.5 s.
#include <benchmark/benchmark.h>

#include <string>

#include "api/decode.h"
#include "api/json/parse.h"

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

}  // namespace

BENCHMARK_MAIN();
