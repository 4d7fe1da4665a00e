#include "informers/reflector.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>
#include <utility>

#include "api/json/parse.h"
#include "base/fault_counters.h"
#include "base/log.h"
#include "base/strings.h"
#include "informers/client/api_status.h"

namespace berth::informers {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

using api::StringMember;
using client::StatusMessage;

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\r' || c == '\n' || c == '\t'; });
}

}  // namespace

void LogToStderr(std::string_view line) { BERTH_LOG(0) << line; }

std::string ObjectKey(const api::Value& obj) {
  const api::Value* meta = obj.Find("metadata");
  const std::string& ns = StringMember(meta, "namespace");
  const std::string& name = StringMember(meta, "name");
  return ns.empty() ? name : ns + "/" + name;
}

std::string ObjectResourceVersion(const api::Value& obj) {
  return StringMember(obj.Find("metadata"), "resourceVersion");
}

Reflector::Reflector(client::KubeClient& client, ReflectorOptions options, DecodeFn decode,
                     ReflectorHandler& handler)
    : client_(client),
      options_(std::move(options)),
      decode_(std::move(decode)),
      handler_(handler),
      rng_(std::random_device{}()) {}

Reflector::~Reflector() { Stop(); }

void Reflector::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] {
    // Nothing may escape the thread (std::terminate): an exception from the client (out of file
    // descriptors, ...) or a handler is logged and retried with a relist after the backoff.
    while (!stop_) {
      try {
        Run();
        return;
      } catch (const std::exception& e) {
        Log(options_.kind + " reflector: " + e.what() + "; listing again after a backoff");
        CountFault(Fault::kRecoveredException, "reflector");
        if (!SleepFor(NextBackoff())) return;
      }
    }
  });
}

void Reflector::RequestStop() {
  {
    std::lock_guard lock(sleep_mu_);
    stop_ = true;
  }
  sleep_cv_.notify_all();
}

void Reflector::Join() {
  if (thread_.joinable()) thread_.join();
}

void Reflector::Stop() {
  RequestStop();
  Join();
}

ReflectorStats Reflector::stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

void Reflector::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void Reflector::SetResourceVersion(const std::string& rv) {
  if (rv.empty() || rv == rv_) return;
  rv_ = rv;
  std::lock_guard lock(stats_mu_);
  stats_.resource_version = rv;
}

bool Reflector::SleepFor(milliseconds d) {
  if (options_.clock) return options_.clock->Wait(d, stop_) && !stop_;
  std::unique_lock lock(sleep_mu_);
  return !sleep_cv_.wait_for(lock, d, [this] { return stop_.load(); });
}

Clock::time_point Reflector::Now() const {
  return options_.clock ? options_.clock->Now() : Clock::now();
}

milliseconds Reflector::NextBackoff() {
  // Same steps as wait.Backoff.Step under client-go's DelayWithReset, except that the reset
  // counts from the last wait rather than the last reset (apimachinery's older
  // ExponentialBackoffManager): a server that keeps failing stays at the cap.
  const Clock::time_point now = Now();
  if (backoff_.count() == 0 || now - last_backoff_ > options_.backoff_reset) {
    backoff_ = options_.initial_backoff;
  }
  last_backoff_ = now;
  const milliseconds base = backoff_;
  backoff_ = std::min(backoff_ * 2, options_.max_backoff);
  if (options_.backoff_jitter <= 0 || base.count() <= 0) return base;
  std::uniform_real_distribution<double> extra(0.0, options_.backoff_jitter);
  return base + milliseconds(static_cast<int64_t>(extra(rng_) * static_cast<double>(base.count())));
}

void Reflector::Run() {
  bool first = true;
  while (!stop_) {
    // Between two lists, the backoff: client-go waits its delayHandler after every
    // ListAndWatch, so a relist after a 410 never comes at once.
    if (!first && !SleepFor(NextBackoff())) return;
    first = false;
    bool absent = false;
    if (!ListAndReplace(&absent)) continue;
    if (absent) {
      if (!SleepFor(options_.absent_poll_interval)) return;
      first = true;  // polled at its own interval, not after a backoff
      continue;
    }
    bool first_watch = true;
    while (!stop_) {
      if (!first_watch) {
        std::lock_guard lock(stats_mu_);
        ++stats_.watch_restarts;
      }
      first_watch = false;
      WatchOutcome outcome = Watch();
      if (outcome == WatchOutcome::kStop) return;
      if (outcome == WatchOutcome::kRelist) break;
    }
  }
}

std::string Reflector::ListPath(const std::string& cont, bool full) const {
  if (full && cont.empty()) return options_.list_path;
  std::string path = options_.list_path + "?limit=" + std::to_string(options_.page_size);
  if (!cont.empty()) path += "&continue=" + QueryEscape(cont);
  return path;
}

bool Reflector::ListAndReplace(bool* absent) {
  std::vector<Listed> items;
  std::string list_rv;
  std::string cont;
  client::PaginationGuard guard(
      "list " + options_.kind + " (" + client_.Server() + options_.list_path + ")",
      options_.list_bounds);
  bool full = false;  // the one full list after an expired continue token
  for (;;) {
    client::Request req;
    req.path = ListPath(cont, full);
    // The reflector retries with its own (interruptible) backoff.
    req.retry = false;
    req.timeout = options_.request_timeout;
    auto resp = client_.Do(req);
    if (stop_) return false;
    if (!resp.ok()) {
      Log("list " + options_.kind + ": " + resp.error());
      return false;
    }
    if (resp->status == 404 && options_.optional) {
      bool was_absent;
      {
        std::lock_guard lock(stats_mu_);
        was_absent = stats_.absent;
        stats_.absent = true;
      }
      if (!was_absent) {
        Log(options_.kind + " is not served (404 on GET " + options_.list_path +
            "); polling every " + std::to_string(options_.absent_poll_interval.count()) +
            "ms until it appears");
      }
      ReplaceAll({});
      rv_.clear();
      synced_ = true;
      *absent = true;
      return true;
    }
    if (resp->status == 410 && !cont.empty() && !full) {
      // The continue token expired mid-list: one full list (no limit), as client-go's pager
      // does (FullListIfExpired); paging again could expire again. Once only: a second 410
      // fails this attempt, and the backoff comes before the next.
      Log("list " + options_.kind + ": continue token expired (" + StatusMessage(resp->body) +
          "); listing again in full");
      items.clear();
      cont.clear();
      guard.Restart();
      full = true;
      continue;
    }
    if (resp->status != 200) {
      Log("list " + options_.kind + ": HTTP " + std::to_string(resp->status) + ": " +
          StatusMessage(resp->body));
      return false;
    }
    auto doc = api::json::ParseJson(resp->body);
    if (!doc.ok()) {
      Log("list " + options_.kind + ": " + doc.error());
      return false;
    }
    const api::Value* meta = doc->Find("metadata");
    list_rv = StringMember(meta, "resourceVersion");
    cont = StringMember(meta, "continue");
    const size_t before = items.size();
    AddListed(*doc, &items);
    if (auto bounded = guard.Page(static_cast<int64_t>(items.size() - before), cont);
        !bounded.ok()) {
      Log(bounded.error());
      return false;
    }
    if (cont.empty()) break;
  }
  {
    std::lock_guard lock(stats_mu_);
    if (stats_.absent) Log(options_.kind + " is now served");
    stats_.absent = false;
  }
  ReplaceAll(items);
  SetResourceVersion(list_rv);
  synced_ = true;
  std::lock_guard lock(stats_mu_);
  if (++stats_.lists > 1) ++stats_.relists;
  stats_.last_sync_time = std::chrono::system_clock::now();
  return true;
}

ObjectPtr Reflector::Decode(const api::Value& obj, const std::string& key, const std::string& rv) {
  auto decoded = decode_(obj);
  if (decoded.ok()) {
    logged_bad_.erase(key);
    return std::move(*decoded);
  }
  auto it = logged_bad_.find(key);
  if (it == logged_bad_.end() || it->second != rv) {
    Log(options_.kind + " " + key + ": " + decoded.error());
    logged_bad_[key] = rv;
    std::lock_guard lock(stats_mu_);
    ++stats_.decode_errors;
  }
  return nullptr;
}

void Reflector::AddListed(api::Value& page, std::vector<Listed>* listed) {
  for (auto& [name, value] : page.MutableObject()) {
    if (name != "items" || !value.IsArray()) continue;
    for (auto& item : value.MutableArray()) {
      Listed l{ObjectKey(item), ObjectResourceVersion(item), nullptr};
      // known_ belongs to this thread; an unchanged object is not decoded again.
      auto it = known_.find(l.key);
      if (it == known_.end() || it->second.resource_version != l.resource_version) {
        l.object = Decode(item, l.key, l.resource_version);
      }
      item = api::Value();  // free the item's tree now, not with the page
      listed->push_back(std::move(l));
    }
  }
}

void Reflector::ReplaceAll(const std::vector<Listed>& items) {
  std::unordered_set<std::string> listed;
  listed.reserve(items.size());
  for (const auto& item : items) listed.insert(item.key);
  // Deletions first: whatever vanished while we were not watching.
  std::vector<std::string> gone;
  for (const auto& [key, known] : known_) {
    if (!listed.count(key)) gone.push_back(key);
  }
  for (const auto& key : gone) {
    auto it = known_.find(key);
    ObjectPtr last = std::move(it->second.object);
    known_.erase(it);
    logged_bad_.erase(key);
    handler_.OnDelete(last);
  }
  for (const auto& item : items) {
    // Unchanged, or did not decode (its last good version stays).
    if (item.object == nullptr) continue;
    auto it = known_.find(item.key);
    if (it == known_.end()) {
      known_.emplace(item.key, Known{item.resource_version, item.object});
      handler_.OnAdd(item.object);
    } else {
      ObjectPtr old = std::exchange(it->second.object, item.object);
      it->second.resource_version = item.resource_version;
      handler_.OnUpdate(old, item.object);
    }
  }
}

void Reflector::Apply(const std::string& type, const api::Value& obj) {
  std::string key = ObjectKey(obj);
  std::string rv = ObjectResourceVersion(obj);
  if (type == "DELETED") {
    auto it = known_.find(key);
    if (it == known_.end()) {
      logged_bad_.erase(key);
      return;
    }
    // The final state when it decodes, else the last good one (no log: it is going away).
    auto final_state = decode_(obj);
    ObjectPtr last = final_state.ok() ? std::move(*final_state) : it->second.object;
    known_.erase(it);
    logged_bad_.erase(key);
    handler_.OnDelete(last);
    return;
  }
  ObjectPtr decoded = Decode(obj, key, rv);
  if (decoded == nullptr) return;
  auto it = known_.find(key);
  if (it == known_.end()) {
    known_.emplace(key, Known{rv, decoded});
    handler_.OnAdd(decoded);
  } else {
    ObjectPtr old = std::exchange(it->second.object, decoded);
    it->second.resource_version = rv;
    handler_.OnUpdate(old, decoded);
  }
}

std::optional<Reflector::WatchOutcome> Reflector::HandleLine(std::string_view line,
                                                             bool* delivered) {
  auto event = api::json::ParseJson(line);
  if (!event.ok()) {
    Log("watch " + options_.kind + ": bad event: " + event.error());
    return WatchOutcome::kRewatch;
  }
  const std::string& type = StringMember(&*event, "type");
  const api::Value* obj = event->Find("object");
  if (obj == nullptr || !obj->IsObject()) {
    Log("watch " + options_.kind + ": " + type + " event without an object");
    return WatchOutcome::kRewatch;
  }
  if (type == "ADDED" || type == "MODIFIED" || type == "DELETED") {
    Apply(type, *obj);
    SetResourceVersion(ObjectResourceVersion(*obj));
    *delivered = true;
    return std::nullopt;
  }
  if (type == "BOOKMARK") {
    SetResourceVersion(ObjectResourceVersion(*obj));
    *delivered = true;
    return std::nullopt;
  }
  if (type == "ERROR") {
    const api::Value* code = obj->Find("code");
    int64_t c = code != nullptr && code->IsInt() ? code->AsInt() : 0;
    const std::string& message = StringMember(obj, "message");
    if (c == 410 || StringMember(obj, "reason") == "Expired" ||
        StringMember(obj, "reason") == "Gone") {
      Log("watch " + options_.kind + ": " + message + "; relisting");
      return WatchOutcome::kRelist;
    }
    Log("watch " + options_.kind + ": error " + std::to_string(c) + ": " + message);
    return WatchOutcome::kRewatch;
  }
  Log("watch " + options_.kind + ": ignoring event of unknown type \"" + type + "\"");
  return std::nullopt;
}

Reflector::WatchOutcome Reflector::Watch() {
  std::uniform_int_distribution<int64_t> dist(
      options_.min_watch_timeout.count(),
      std::max(options_.min_watch_timeout.count(), options_.max_watch_timeout.count()));
  int64_t timeout_s = dist(rng_);
  client::Request req;
  req.path = options_.list_path +
             "?allowWatchBookmarks=true&watch=true&resourceVersion=" + QueryEscape(rv_) +
             "&timeoutSeconds=" + std::to_string(timeout_s);
  req.retry = false;
  // Bounds connecting and the response head; the body runs until the server's timeoutSeconds.
  req.timeout = options_.request_timeout;

  auto start = Now();
  bool delivered = false;
  std::optional<WatchOutcome> line_outcome;
  std::string error_body;
  auto status = client_.Stream(
      req,
      [&](std::string_view line) {
        if (stop_) return false;
        if (IsBlank(line)) return true;
        line_outcome = HandleLine(line, &delivered);
        return !line_outcome.has_value();
      },
      &stop_, &error_body);
  if (stop_) return WatchOutcome::kStop;
  if (line_outcome == WatchOutcome::kRelist) return WatchOutcome::kRelist;

  // Healthy or not, the backoff is not reset here: only time resets it (backoff_reset), so a
  // server that delivers one event and then fails every stream is still backed off.
  bool healthy = delivered || Now() - start >= options_.healthy_stream;
  if (!line_outcome.has_value()) {
    if (!status.ok()) {
      Log("watch " + options_.kind + ": " + status.error());
    } else if (*status == 410) {
      Log("watch " + options_.kind + ": " + StatusMessage(error_body) + "; relisting");
      return WatchOutcome::kRelist;
    } else if (*status == 404) {
      // The resource went away (a CRD deleted): the relist decides what that means.
      Log("watch " + options_.kind + ": HTTP 404: " + StatusMessage(error_body) + "; relisting");
      return WatchOutcome::kRelist;
    } else if (*status != 200) {
      Log("watch " + options_.kind + ": HTTP " + std::to_string(*status) + ": " +
          StatusMessage(error_body));
    } else if (healthy) {
      // The server ended the watch (timeoutSeconds): pick up where it left off.
      return WatchOutcome::kRewatch;
    }
  }
  return SleepFor(NextBackoff()) ? WatchOutcome::kRewatch : WatchOutcome::kStop;
}

}  // namespace berth::informers
