#include "informers/client/beast_client.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <thread>
#include <utility>

#include "informers/client/watch_lines.h"

namespace berth::client {

using Clock = std::chrono::steady_clock;

struct BeastClient::Attempt {
  std::optional<Response> response;
  std::optional<HttpError> error;
};

namespace {

// Cap on a non-200 stream body kept for the caller (a Status object is ~300 bytes).
constexpr size_t kMaxErrorBody = 1 << 20;

bool RetryableStatus(int status) { return status == 429 || (status >= 500 && status <= 599); }

// Retry-After in seconds (the only form the API server sends); nullopt when absent or a date.
std::optional<std::chrono::milliseconds> RetryAfter(const Response& res) {
  auto it = res.headers.find("retry-after");
  if (it == res.headers.end() || it->second.empty() || it->second.size() > 9) return std::nullopt;
  if (!std::all_of(it->second.begin(), it->second.end(),
                   [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::chrono::seconds(std::stol(it->second));
}

}  // namespace

BeastClient::BeastClient(ClientConfig cfg, float qps, int burst, ClientOptions opts)
    : cfg_(std::move(cfg)),
      opts_(std::move(opts)),
      limiter_(qps, burst, opts_.limiter_clock ? opts_.limiter_clock : SteadyLimiterClock()),
      tokens_(cfg_.token, cfg_.token_file) {
  HttpClientOptions http;
  http.max_idle_connections = opts_.max_idle_connections;
  http.idle_timeout = opts_.idle_timeout;
  auto target = ParseTarget(cfg_.server);
  if (!target.ok()) {
    init_error_ = target.error();
    return;
  }
  auto created = HttpClient::Create(std::move(*target), cfg_, http);
  if (!created.ok()) {
    init_error_ = created.error();
    return;
  }
  http_ = std::move(*created);
}

BeastClient::~BeastClient() = default;

Ok BeastClient::InitStatus() const {
  if (!init_error_.empty()) return Error{init_error_};
  return {};
}

ClientStats BeastClient::Stats() const {
  ClientStats s;
  s.connections_opened = http_ ? http_->connections_opened() : 0;
  s.attempts = http_ ? http_->requests_sent() : 0;
  s.retries = retries_.load();
  s.rate_limit_wait = limiter_.TotalWaited();
  return s;
}

std::string BeastClient::Describe(const Request& req) const {
  return req.method + " " + cfg_.server + req.path;
}

Result<std::vector<std::pair<std::string, std::string>>> BeastClient::Headers(const Request& req) {
  auto token = tokens_.Token();
  if (!token.ok()) return Error{token.error()};
  std::vector<std::pair<std::string, std::string>> h;
  h.emplace_back("User-Agent", opts_.user_agent);
  if (req.headers.find("Accept") == req.headers.end()) h.emplace_back("Accept", "application/json");
  if (!token->empty()) h.emplace_back("Authorization", "Bearer " + *token);
  if (!req.body.empty()) h.emplace_back("Content-Type", req.content_type);
  for (const auto& kv : req.headers) h.push_back(kv);
  return h;
}

std::chrono::milliseconds BeastClient::Backoff(int retry) const {
  auto d = opts_.initial_backoff;
  for (int i = 1; i < retry && d < opts_.max_backoff; ++i) d *= 2;
  return std::min(d, opts_.max_backoff);
}

void BeastClient::TryOnce(const Request& req, std::chrono::milliseconds timeout, Attempt* out) {
  auto headers = Headers(req);
  if (!headers.ok()) {
    out->error = HttpError{headers.error(), false};
    return;
  }
  HttpRequest http{req.method, req.path, std::move(*headers), req.body};
  // A stale pooled connection is replaced only when the request may be replayed.
  auto res = http_->RoundTrip(http, Clock::now() + timeout, req.retry || req.method == "GET");
  if (auto* e = std::get_if<HttpError>(&res)) {
    out->error = std::move(*e);
  } else {
    out->response = std::move(std::get<Response>(res));
  }
}

Result<Response> BeastClient::Do(const Request& req) {
  if (!init_error_.empty()) return Error{Describe(req) + ": " + init_error_};
  const auto timeout = req.timeout.count() > 0 ? req.timeout : opts_.timeout;
  const int max_attempts = req.retry ? 1 + std::max(opts_.max_retries, 0) : 1;
  auto past_deadline = [&](const std::string& why, int attempts) {
    std::string msg = Describe(req) + ": " + (attempts == 0 ? "not sent" : why);
    if (attempts > 1) msg += " (after " + std::to_string(attempts) + " attempts)";
    return Error{msg + "; deadline passed (" + opts_.deadline_source + ")",
                 ErrorCode::kUnavailable};
  };
  std::string last_error;
  for (int attempt = 1;; ++attempt) {
    limiter_.Wait();
    const Clock::time_point now = Clock::now();
    if (now >= opts_.deadline) return past_deadline(last_error, attempt - 1);
    // The attempt's own timeout, cut to what is left of the deadline.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(opts_.deadline - now);
    const bool cut = opts_.deadline != Clock::time_point::max() && left < timeout;
    Attempt a;
    TryOnce(req, cut ? left : timeout, &a);
    if (a.error && cut && Clock::now() >= opts_.deadline) {
      return past_deadline(a.error->message, attempt);
    }
    std::chrono::milliseconds delay;
    if (a.response) {
      if (!RetryableStatus(a.response->status) || attempt >= max_attempts) {
        return std::move(*a.response);
      }
      auto after = RetryAfter(*a.response);
      delay = after ? std::min(*after, opts_.max_retry_after) : Backoff(attempt);
    } else {
      if (!a.error->retryable || attempt >= max_attempts) {
        std::string msg = Describe(req) + ": " + a.error->message;
        if (attempt > 1) msg += " (after " + std::to_string(attempt) + " attempts)";
        return Error{std::move(msg)};
      }
      delay = Backoff(attempt);
      last_error = a.error->message;
    }
    if (opts_.deadline != Clock::time_point::max() && Clock::now() + delay >= opts_.deadline) {
      // No retry could finish in time.
      if (a.response) return std::move(*a.response);
      return past_deadline(last_error, attempt);
    }
    retries_.fetch_add(1);
    std::this_thread::sleep_for(delay);
  }
}

Result<int> BeastClient::Stream(const Request& req,
                                const std::function<bool(std::string_view line)>& on_line,
                                const std::atomic<bool>* stop, std::string* error_body) {
  if (!init_error_.empty()) return Error{Describe(req) + ": " + init_error_};
  auto headers = Headers(req);
  if (!headers.ok()) return Error{Describe(req) + ": " + headers.error()};
  HttpRequest http{req.method, req.path, std::move(*headers), req.body};
  const auto timeout = req.timeout.count() > 0 ? req.timeout : opts_.timeout;
  limiter_.Wait();
  const Clock::time_point head_deadline = Clock::now() + timeout;
  auto fail = [&](const HttpError& e) -> Result<int> {
    if (e.stopped) return 200;  // *stop before the stream started
    return Error{Describe(req) + ": " + e.message};
  };
  auto opened = http_->OpenStream(http, head_deadline, stop);
  if (auto* e = std::get_if<HttpError>(&opened)) return fail(*e);
  HttpStream& conn = *std::get<std::unique_ptr<HttpStream>>(opened);
  const int status = conn.status();

  if (status != 200) {
    std::string body;
    auto r = conn.ReadBody(
        [&](std::string_view data) {
          body.append(data.substr(0, kMaxErrorBody - std::min(kMaxErrorBody, body.size())));
          return true;
        },
        head_deadline, stop);
    (void)r;  // the status is the answer; a truncated body is still worth showing
    if (error_body != nullptr) *error_body = std::move(body);
    return status;
  }

  WatchLineSplitter lines(opts_.max_watch_line);
  bool too_long = false;
  auto on_data = [&](std::string_view data) {
    auto fed = lines.Feed(data, on_line);
    too_long = fed == WatchLineSplitter::Status::kTooLong;
    return fed == WatchLineSplitter::Status::kOk;
  };
  auto body = conn.ReadBody(on_data, Clock::time_point::max(), stop);
  if (too_long) {
    // apimachinery's streaming decoder's words, with the bound.
    return Error{Describe(req) + ": object to decode was longer than maximum allowed size (" +
                 std::to_string(lines.max_line()) + " bytes on one watch line)"};
  }
  if (auto* e = std::get_if<HttpError>(&body)) return fail(*e);
  // The server closed the stream: a final line without its newline is still delivered (a
  // truncated object then fails to decode in the caller, which re-lists or re-watches).
  if (std::get<bool>(body) && !lines.Rest().empty() && !(stop != nullptr && stop->load())) {
    on_line(lines.Rest());
  }
  return 200;
}

std::unique_ptr<KubeClient> NewBeastClient(ClientConfig cfg, float qps, int burst,
                                           ClientOptions opts) {
  return std::make_unique<BeastClient>(std::move(cfg), qps, burst, std::move(opts));
}

}  // namespace berth::client
