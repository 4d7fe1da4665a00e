#pragma once
// FakeKubeClient: a scripted, in-memory client::KubeClient for unit tests.
//
//   FakeKubeClient kc;
//   kc.PushResponse("GET", "/api/v1/pods", 200,
//   R"({"metadata":{"resourceVersion":"10"},"items":[]})"); kc.PushWatch("/api/v1/pods", {.lines =
//   {R"({"type":"ADDED","object":{...}})"}});
//
// Do() answers from a FIFO per "METHOD /path" (the query string is ignored for matching);
// a response pushed with sticky=true is reused while it is the last one queued. With nothing
// queued Do() returns an Error. A handler installed with SetHandler is asked first.
// Stream() takes the next WatchScript for the path, waiting (until *stop) when none is queued:
// each script is one watch connection. Every request is recorded with its time.
// Thread-safe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "informers/client/kube_client.h"

namespace berth::testing {

class FakeKubeClient : public client::KubeClient {
 public:
  struct WatchScript {
    int status = 200;  // non-200: Stream returns it at once with error_body
    std::string error_body;
    std::vector<std::string> lines;
    // After the lines: close cleanly (200), fail with a connection error, or stay open until
    // stopped.
    enum class End { kClose, kDisconnect, kHang } end = End::kClose;

    static WatchScript Close(std::vector<std::string> lines) {
      return Make(200, "", std::move(lines), End::kClose);
    }
    static WatchScript Hang(std::vector<std::string> lines) {
      return Make(200, "", std::move(lines), End::kHang);
    }
    static WatchScript Disconnect(std::vector<std::string> lines = {}) {
      return Make(200, "", std::move(lines), End::kDisconnect);
    }
    static WatchScript Status(int status, std::string error_body) {
      return Make(status, std::move(error_body), {}, End::kClose);
    }
    static WatchScript Make(int status, std::string error_body, std::vector<std::string> lines,
                            End end) {
      WatchScript s;
      s.status = status;
      s.error_body = std::move(error_body);
      s.lines = std::move(lines);
      s.end = end;
      return s;
    }
  };
  struct Recorded {
    client::Request request;
    std::chrono::steady_clock::time_point at;
    bool stream = false;
  };
  using Handler = std::function<std::optional<Result<client::Response>>(const client::Request&)>;

  void PushResponse(const std::string& method, const std::string& path, int status,
                    std::string body, bool sticky = false) {
    std::lock_guard lock(mu_);
    responses_[method + " " + path].push_back(
        Scripted{Result<client::Response>(client::Response{status, std::move(body), {}}), sticky});
  }
  void PushError(const std::string& method, const std::string& path, std::string message) {
    std::lock_guard lock(mu_);
    responses_[method + " " + path].push_back(
        Scripted{Result<client::Response>(Error{std::move(message)}), false});
  }
  void PushWatch(const std::string& path, WatchScript script) {
    {
      std::lock_guard lock(mu_);
      watches_[path].push_back(std::move(script));
    }
    cv_.notify_all();
  }
  void SetHandler(Handler h) {
    std::lock_guard lock(mu_);
    handler_ = std::move(h);
  }

  std::vector<Recorded> Requests() const {
    std::lock_guard lock(mu_);
    return recorded_;
  }
  // Recorded request paths (with query) for METHOD and path prefix, in order.
  std::vector<std::string> Paths(const std::string& method, const std::string& prefix,
                                 bool streams) const {
    std::vector<std::string> out;
    for (const auto& r : Requests()) {
      if (r.stream == streams && r.request.method == method &&
          r.request.path.compare(0, prefix.size(), prefix) == 0) {
        out.push_back(r.request.path);
      }
    }
    return out;
  }
  std::vector<std::string> WatchPaths(const std::string& path) const {
    return Paths("GET", path, true);
  }
  std::vector<std::string> ListPaths(const std::string& path) const {
    return Paths("GET", path + "?", false);
  }
  // Number of Stream calls currently waiting for a script.
  int WaitingStreams() const { return waiting_.load(); }

  Result<client::Response> Do(const client::Request& req) override {
    Handler handler;
    {
      std::lock_guard lock(mu_);
      recorded_.push_back({req, std::chrono::steady_clock::now(), false});
      handler = handler_;
    }
    if (handler) {
      if (auto r = handler(req)) return *r;
    }
    std::lock_guard lock(mu_);
    auto& q = responses_[req.method + " " + StripQuery(req.path)];
    if (q.empty()) {
      return Error{"fake: no response scripted for " + req.method + " " + req.path};
    }
    Scripted s = q.front();
    if (!(s.sticky && q.size() == 1)) q.pop_front();
    return s.response;
  }

  Result<int> Stream(const client::Request& req,
                     const std::function<bool(std::string_view line)>& on_line,
                     const std::atomic<bool>* stop, std::string* error_body) override {
    std::string path = StripQuery(req.path);
    WatchScript script;
    {
      std::unique_lock lock(mu_);
      recorded_.push_back({req, std::chrono::steady_clock::now(), true});
      ++waiting_;
      while (watches_[path].empty()) {
        if (stop != nullptr && stop->load()) {
          --waiting_;
          return 200;
        }
        cv_.wait_for(lock, std::chrono::milliseconds(5));
      }
      --waiting_;
      script = std::move(watches_[path].front());
      watches_[path].pop_front();
    }
    if (script.status != 200) {
      if (error_body != nullptr) *error_body = script.error_body;
      return script.status;
    }
    for (const auto& line : script.lines) {
      if (stop != nullptr && stop->load()) return 200;
      if (!on_line(line)) return 200;
    }
    switch (script.end) {
      case WatchScript::End::kClose:
        return 200;
      case WatchScript::End::kDisconnect:
        return Error{"fake: connection reset by peer"};
      case WatchScript::End::kHang:
        while (stop == nullptr || !stop->load()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return 200;
    }
    return 200;
  }

  std::string Server() const override { return "https://fake"; }

 private:
  struct Scripted {
    Result<client::Response> response;
    bool sticky;
  };
  static std::string StripQuery(const std::string& path) { return path.substr(0, path.find('?')); }

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  std::map<std::string, std::deque<Scripted>> responses_;
  std::map<std::string, std::deque<WatchScript>> watches_;
  std::vector<Recorded> recorded_;
  Handler handler_;
  std::atomic<int> waiting_{0};
};

// Polls pred every 5 ms until it holds or timeout passes; returns pred().
inline bool WaitFor(const std::function<bool()>& pred,
                    std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return pred();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace berth::testing
