// cel_eval: berth's side of the differential test as a filter (same JSON lines as celgo), for
// comparing by hand: `cel_eval < corpus.jsonl` next to `celgo < corpus.jsonl`.
#include <iostream>
#include <string>

#include "test/cel/device_json.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto c = berth::cel::testing::ParseCase(line);
    if (!c.ok()) {
      std::cerr << "cel_eval: bad input line: " << c.error() << "\n";
      return 2;
    }
    std::cout << berth::cel::testing::OutcomeToJson(berth::cel::testing::RunBerth(*c)) << "\n";
  }
  return 0;
}
