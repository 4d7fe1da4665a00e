#pragma once
// PaginationGuard: the bounds of one paginated list (GET ?limit=N, following `continue`), shared
// by the reflector's list and `berth simulate --kubeconfig`'s lister. A server that answers
// every page with a continue token (the same one again, or a fresh one each time) would
// otherwise be followed forever, holding every item read so far (1.6 GB in 30 s). The guard
// ends such a list with an Error (ErrorCode::kInvalid) of one line that starts with the
// caller's `what` ("list Pod (https://host/api/v1/pods)"):
//   - a continue token equal to one this list already followed:
//     `...: the server repeated continue token "abc" (page 3)`;
//   - more items than ListBounds::max_items, or more pages than ListBounds::max_pages:
//     `...: more than 1000000 items in one list (page 5001); stopping`,
//     `...: more than 100000 pages in one list; stopping`.
// Tokens are remembered by a 64-bit hash (memory stays 8 bytes a page whatever their length).
// Not thread-safe: one guard per list, used by the listing thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

#include "base/result.h"

namespace berth::client {

struct ListBounds {
  // Kubernetes' largest supported cluster holds 150,000 pods and 5,000 nodes; a list of one kind
  // with more than 1,000,000 items is a server that does not stop, not a cluster.
  int64_t max_items = 1'000'000;
  // A page holds up to `limit` items (200 to 500 for berth), so a million items take at most
  // 5,000 pages; the page bound catches a server that sends (nearly) empty pages forever.
  int64_t max_pages = 100'000;
};

class PaginationGuard {
 public:
  explicit PaginationGuard(std::string what, ListBounds bounds = {});

  // Records one page that was read: the number of items it held and the continue token it
  // returned ("" = the last page). Error as in the header comment.
  Ok Page(int64_t items, std::string_view next_continue);
  // Forgets the pages seen: the list starts over (after a continue token expired).
  void Restart();

  int64_t pages() const { return pages_; }
  int64_t items() const { return items_; }

 private:
  const std::string what_;
  const ListBounds bounds_;
  int64_t pages_ = 0;
  int64_t items_ = 0;
  std::unordered_set<uint64_t> tokens_;
};

}  // namespace berth::client
