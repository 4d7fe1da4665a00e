#pragma once
// internal::ChildCache: memoises prometheus-cpp `Family<T>::Add` per label-value tuple, so that the
// hot path looks a child up under a shared lock instead of building a `std::map` of labels and
// taking the family's exclusive lock on every observation.
//
// Children are never removed, so the returned reference stays valid for the family's lifetime
// (the registry keeps families alive; prometheus-cpp never moves children). Thread-safe.

#include <array>
#include <cstddef>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/labels.h"

namespace berth::metrics::internal {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <typename T, size_t N>
class ChildCache {
 public:
  // `buckets` is used only when T is prometheus::Histogram.
  ChildCache(prometheus::Family<T>& family, std::array<std::string, N> label_names,
             prometheus::Histogram::BucketBoundaries buckets = {})
      : family_(family), label_names_(std::move(label_names)), buckets_(std::move(buckets)) {}

  ChildCache(const ChildCache&) = delete;
  ChildCache& operator=(const ChildCache&) = delete;

  // The child for these label values (in label_names order), created on first use.
  T& Get(const std::array<std::string_view, N>& values) {
    // One reusable key buffer per thread: a cache hit allocates nothing.
    thread_local std::string key;
    key.clear();
    for (size_t i = 0; i < N; ++i) {
      if (i > 0) key.push_back('\x1f');  // unit separator: cannot clash with normal label text
      key.append(values[i]);
    }
    {
      std::shared_lock lock(mu_);
      auto it = children_.find(std::string_view(key));
      if (it != children_.end()) return *it->second;
    }
    prometheus::Labels labels;
    for (size_t i = 0; i < N; ++i) labels.emplace(label_names_[i], std::string(values[i]));
    std::unique_lock lock(mu_);
    auto it = children_.find(std::string_view(key));
    if (it != children_.end()) return *it->second;
    T* child;
    if constexpr (std::is_same_v<T, prometheus::Histogram>) {
      child = &family_.Add(labels, buckets_);
    } else {
      child = &family_.Add(labels);
    }
    children_.emplace(key, child);
    return *child;
  }

 private:
  prometheus::Family<T>& family_;
  const std::array<std::string, N> label_names_;
  const prometheus::Histogram::BucketBoundaries buckets_;

  // Guarded by mu_.
  std::shared_mutex mu_;
  std::unordered_map<std::string, T*, StringHash, std::equal_to<>> children_;
};

}  // namespace berth::metrics::internal
