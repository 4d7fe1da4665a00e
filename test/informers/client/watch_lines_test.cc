// WatchLineSplitter: lines cut at "\n" whatever the chunking, one huge event fed in tiny pieces,
// the line-size bound, and stopping.
#include "informers/client/watch_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace berth::client {
namespace {

using Status = WatchLineSplitter::Status;

struct Collect {
  std::vector<std::string> lines;
  bool operator()(std::string_view l) {
    lines.emplace_back(l);
    return true;
  }
};

TEST(WatchLineSplitterTest, LinesAreTheSameWhateverTheChunking) {
  const std::string body = "{\"a\":1}\n{\"b\":2}\r\n\n\r\n{\"c\":3}\n{\"d\"";
  const std::vector<std::string> want = {"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"};
  for (size_t chunk = 1; chunk <= body.size(); ++chunk) {
    WatchLineSplitter s;
    std::vector<std::string> lines;
    auto on_line = [&](std::string_view l) {
      lines.emplace_back(l);
      return true;
    };
    for (size_t i = 0; i < body.size(); i += chunk) {
      ASSERT_EQ(s.Feed(std::string_view(body).substr(i, chunk), on_line), Status::kOk);
    }
    EXPECT_EQ(lines, want) << "chunk " << chunk;
    EXPECT_EQ(s.Rest(), "{\"d\"") << "chunk " << chunk;
  }
}

// One event just under the 16 MiB limit fed 7 bytes at a time: each byte is scanned once, so
// this takes a fraction of a second; rescanning the buffer on every read, as before, would not
// finish (2.4 million reads of an 8 MiB average buffer: 20 TB scanned).
TEST(WatchLineSplitterTest, OneHugeEventFedInTinyPieces) {
  const size_t size = kMaxWatchLine - 16;
  std::string event = "{\"x\":\"" + std::string(size - 8, 'y') + "\"}";
  ASSERT_EQ(event.size(), size);
  event += "\r\n{}\n";
  WatchLineSplitter s;
  std::vector<size_t> sizes;
  bool same = false;
  auto on_line = [&](std::string_view l) {
    if (sizes.empty()) same = l == std::string_view(event).substr(0, size);
    sizes.push_back(l.size());
    return true;
  };
  for (size_t i = 0; i < event.size(); i += 7) {
    ASSERT_EQ(s.Feed(std::string_view(event).substr(i, 7), on_line), Status::kOk);
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{size, 2}));
  EXPECT_TRUE(same);
  EXPECT_TRUE(s.Rest().empty());
}

TEST(WatchLineSplitterTest, LineOverTheLimitIsRefusedBeforeItEnds) {
  WatchLineSplitter s(8);
  Collect c;
  EXPECT_EQ(s.Feed("12345678\n", std::ref(c)), Status::kOk);  // exactly the limit
  EXPECT_EQ(s.Feed("12345", std::ref(c)), Status::kOk);
  EXPECT_EQ(s.Feed("6789", std::ref(c)), Status::kTooLong);  // no newline yet: refused already
  EXPECT_EQ(c.lines, std::vector<std::string>{"12345678"});

  WatchLineSplitter whole(8);
  EXPECT_EQ(whole.Feed("ok\n123456789\nlater\n", std::ref(c)), Status::kTooLong);
  EXPECT_EQ(c.lines, (std::vector<std::string>{"12345678", "ok"}));
}

TEST(WatchLineSplitterTest, StopKeepsTheRestForNothingMore) {
  WatchLineSplitter s;
  int seen = 0;
  auto on_line = [&](std::string_view) { return ++seen < 2; };
  EXPECT_EQ(s.Feed("1\n2\n3\n", on_line), Status::kStopped);
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace berth::client
