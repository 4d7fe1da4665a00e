// SchedulingQueue::PodHeap: the indexed binary heap behind activeQ and backoffQ.
#include <utility>

#include "scheduler/queue/scheduling_queue.h"

namespace berth::queue {

void SchedulingQueue::PodHeap::Swap(size_t i, size_t j) {
  std::swap(items_[i], items_[j]);
  items_[i]->heap_slot = i;
  items_[j]->heap_slot = j;
}

bool SchedulingQueue::PodHeap::Up(size_t i) {
  bool moved = false;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before_(*items_[i], *items_[parent])) break;
    Swap(i, parent);
    i = parent;
    moved = true;
  }
  return moved;
}

void SchedulingQueue::PodHeap::Down(size_t i) {
  const size_t n = items_.size();
  while (true) {
    size_t best = i;
    size_t l = 2 * i + 1;
    size_t r = l + 1;
    if (l < n && before_(*items_[l], *items_[best])) best = l;
    if (r < n && before_(*items_[r], *items_[best])) best = r;
    if (best == i) return;
    Swap(i, best);
    i = best;
  }
}

void SchedulingQueue::PodHeap::Push(QueuedPodInfoPtr p) {
  p->heap_slot = items_.size();
  index_[UidOf(p->Pod())] = p.get();
  items_.push_back(std::move(p));
  Up(items_.size() - 1);
}

QueuedPodInfoPtr SchedulingQueue::PodHeap::Pop() {
  if (items_.empty()) return nullptr;
  QueuedPodInfoPtr top = items_.front();
  Remove(UidOf(top->Pod()));
  return top;
}

bool SchedulingQueue::PodHeap::Remove(const std::string& uid) {
  auto it = index_.find(uid);
  if (it == index_.end()) return false;
  size_t i = it->second->heap_slot;
  index_.erase(it);
  size_t last = items_.size() - 1;
  if (i != last) {
    items_[i] = std::move(items_[last]);
    items_[i]->heap_slot = i;
  }
  items_.pop_back();
  if (i < items_.size() && !Up(i)) Down(i);
  return true;
}

void SchedulingQueue::PodHeap::Fix(const std::string& uid) {
  auto it = index_.find(uid);
  if (it == index_.end()) return;
  const size_t i = it->second->heap_slot;
  if (!Up(i)) Down(i);
}

}  // namespace berth::queue
