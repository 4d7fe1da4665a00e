#include "informers/client/pagination.h"

#include <functional>
#include <utility>

#include "base/strings.h"

namespace berth::client {
namespace {

// A token as it appears in a message: quoted (a hostile server chooses it) and cut at 64 bytes
// (real tokens are base64 of ~100 bytes; the hash is what identifies it).
std::string ShowToken(std::string_view token) {
  constexpr size_t kMaxShown = 64;
  if (token.size() <= kMaxShown) return Quote(token);
  return Quote(token.substr(0, kMaxShown)) + "... (" + std::to_string(token.size()) + " bytes)";
}

}  // namespace

PaginationGuard::PaginationGuard(std::string what, ListBounds bounds)
    : what_(std::move(what)), bounds_(bounds) {}

Ok PaginationGuard::Page(int64_t items, std::string_view next_continue) {
  ++pages_;
  items_ += items;
  const std::string page = " (page " + std::to_string(pages_) + ")";
  if (items_ > bounds_.max_items) {
    return Error{what_ + ": more than " + std::to_string(bounds_.max_items) + " items in one list" +
                 page + "; stopping"};
  }
  if (next_continue.empty()) return {};
  if (pages_ >= bounds_.max_pages) {
    return Error{what_ + ": more than " + std::to_string(bounds_.max_pages) +
                 " pages in one list; stopping"};
  }
  if (!tokens_.insert(std::hash<std::string_view>{}(next_continue)).second) {
    return Error{what_ + ": the server repeated continue token " + ShowToken(next_continue) + page};
  }
  return {};
}

void PaginationGuard::Restart() {
  pages_ = 0;
  items_ = 0;
  tokens_.clear();
}

}  // namespace berth::client
