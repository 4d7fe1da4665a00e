#include "informers/leader_election.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "api/decode.h"
#include "api/json/parse.h"
#include "base/fault_counters.h"

namespace berth::informers {
namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

// Same factor as client-go's JitterFactor for the acquire loop.
constexpr double kJitterFactor = 1.2;
// Writes reject unknown fields instead of dropping them silently.
constexpr char kStrict[] = "?fieldValidation=Strict";

std::string Seconds(milliseconds d) {
  std::string s = std::to_string(d.count() / 1000);
  if (d.count() % 1000 != 0) s += "." + std::to_string(d.count() % 1000 + 1000).substr(1);
  return s + "s";
}

std::string NowMicroTime() {
  auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return api::FormatTime(
      api::Time{std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count()});
}

std::string StringField(const api::Value* obj, std::string_view key) {
  const api::Value* f = obj == nullptr ? nullptr : obj->Find(key);
  return f != nullptr && f->IsString() ? f->AsString() : "";
}

int64_t IntField(const api::Value* obj, std::string_view key) {
  const api::Value* f = obj == nullptr ? nullptr : obj->Find(key);
  return f != nullptr && f->IsInt() ? f->AsInt() : 0;
}

std::string BodyMessage(const std::string& body) {
  auto v = api::json::ParseJson(body);
  if (v.ok()) {
    std::string msg = StringField(&*v, "message");
    if (!msg.empty()) return msg;
  }
  return body.size() > 200 ? body.substr(0, 200) + "..." : body;
}

}  // namespace

Ok ValidateLeaderElectionConfig(const LeaderElectionConfig& c) {
  if (c.lease_name.empty()) return Error{"lease name must not be empty"};
  if (c.lease_namespace.empty()) return Error{"lease namespace must not be empty"};
  if (c.lease_duration.count() <= 0) return Error{"leaseDuration must be greater than zero"};
  if (c.renew_deadline.count() <= 0) return Error{"renewDeadline must be greater than zero"};
  if (c.retry_period.count() <= 0) return Error{"retryPeriod must be greater than zero"};
  if (c.lease_duration <= c.renew_deadline) {
    return Error{"leaseDuration (" + Seconds(c.lease_duration) +
                 ") must be greater than renewDeadline (" + Seconds(c.renew_deadline) + ")"};
  }
  if (static_cast<double>(c.renew_deadline.count()) <=
      kJitterFactor * static_cast<double>(c.retry_period.count())) {
    return Error{"renewDeadline (" + Seconds(c.renew_deadline) +
                 ") must be greater than 1.2 * retryPeriod (" + Seconds(c.retry_period) + ")"};
  }
  return Ok();
}

std::string DefaultIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof(host), "berth");
  }
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string suffix;
  for (int i = 0; i < 32; ++i) suffix.push_back(kHex[rd() & 15]);
  return std::string(host) + "_" + suffix;
}

Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(client::KubeClient& client,
                                                             LeaderElectionConfig config) {
  if (Ok v = ValidateLeaderElectionConfig(config); !v.ok()) {
    return Error{"leader election: " + v.error()};
  }
  if (config.identity.empty()) config.identity = DefaultIdentity();
  return std::unique_ptr<LeaderElector>(new LeaderElector(client, std::move(config)));
}

LeaderElector::LeaderElector(client::KubeClient& client, LeaderElectionConfig config)
    : client_(client), config_(std::move(config)), rng_(std::random_device{}()) {}

LeaderElector::~LeaderElector() { Stop(); }

void LeaderElector::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] {
    // Nothing may escape the thread (std::terminate): an exception (out of file descriptors,
    // ...) ends any leadership, as a failed renewal does, and the campaign starts again.
    while (!stop_) {
      try {
        Run();
        return;
      } catch (const std::exception& e) {
        Log(std::string("leader election: ") + e.what() + "; campaigning again");
        CountFault(Fault::kRecoveredException, "leader_election");
        if (leading_) {
          leading_ = false;
          try {
            if (config_.on_stopped_leading) config_.on_stopped_leading();
          } catch (const std::exception& e2) {
            Log(std::string("leader election: on_stopped_leading: ") + e2.what());
          }
        }
        if (!SleepFor(config_.retry_period)) return;
      }
    }
  });
}

void LeaderElector::Stop() {
  {
    std::lock_guard lock(sleep_mu_);
    stop_ = true;
  }
  sleep_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string LeaderElector::GetLeader() const {
  std::lock_guard lock(leader_mu_);
  return reported_leader_;
}

void LeaderElector::Log(const std::string& line) const {
  if (config_.log) config_.log(line);
}

bool LeaderElector::SleepFor(milliseconds d) {
  std::unique_lock lock(sleep_mu_);
  return !sleep_cv_.wait_for(lock, d, [this] { return stop_.load(); });
}

std::string LeaderElector::LeasePath() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + config_.lease_namespace + "/leases";
}

std::string LeaderElector::LeaseBody(const Record& r, const std::string& resource_version) const {
  api::Value meta = api::Value::MakeObject();
  meta.Set("name", api::Value::String(config_.lease_name));
  meta.Set("namespace", api::Value::String(config_.lease_namespace));
  if (!resource_version.empty()) {
    meta.Set("resourceVersion", api::Value::String(resource_version));
  }
  api::Value spec = api::Value::MakeObject();
  spec.Set("holderIdentity", api::Value::String(r.holder));
  spec.Set("leaseDurationSeconds", api::Value::Int(r.lease_duration_seconds));
  if (!r.acquire_time.empty()) spec.Set("acquireTime", api::Value::String(r.acquire_time));
  if (!r.renew_time.empty()) spec.Set("renewTime", api::Value::String(r.renew_time));
  spec.Set("leaseTransitions", api::Value::Int(r.leader_transitions));
  api::Value lease = api::Value::MakeObject();
  lease.Set("apiVersion", api::Value::String("coordination.k8s.io/v1"));
  lease.Set("kind", api::Value::String("Lease"));
  lease.Set("metadata", std::move(meta));
  lease.Set("spec", std::move(spec));
  return api::json::ToJson(lease);
}

void LeaderElector::ObserveHolder(const std::string& holder) {
  {
    std::lock_guard lock(leader_mu_);
    if (holder == reported_leader_) return;
    reported_leader_ = holder;
  }
  if (!holder.empty()) {
    Log("leader election: lease " + config_.lease_namespace + "/" + config_.lease_name +
        " is held by " + holder);
    if (config_.on_new_leader) config_.on_new_leader(holder);
  }
}

// Same steps as client-go's tryAcquireOrRenew: get (or create) the lease, decide whether we may
// take it, update it.
bool LeaderElector::TryAcquireOrRenew() {
  const std::string now = NowMicroTime();
  const auto lease_seconds = std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count());
  const LeaseRead read = GetLease();
  switch (read.state) {
    case LeaseRead::State::kFailed:
      return false;
    case LeaseRead::State::kNotFound:
      return CreateLease(Record{config_.identity, lease_seconds, now, now, 0});
    case LeaseRead::State::kFound:
      break;
  }
  if (!MayTake(read.record)) return false;
  Record next{config_.identity, lease_seconds, now, now, read.record.leader_transitions};
  if (read.record.holder == config_.identity) {
    next.acquire_time = read.record.acquire_time;
  } else {
    ++next.leader_transitions;
  }
  return UpdateLease(next, read.resource_version);
}

client::Request LeaderElector::LeaseRequest(std::string method, std::string path,
                                            std::string body) const {
  client::Request request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  // The acquire/renew loops retry on their own schedule; a request must not outlast a round.
  request.retry = false;
  request.timeout = config_.renew_deadline;
  return request;
}

LeaderElector::LeaseRead LeaderElector::GetLease() {
  LeaseRead read;
  auto got = client_.Do(LeaseRequest("GET", LeasePath() + "/" + config_.lease_name));
  if (!got.ok()) {
    Log("leader election: " + got.error());
    return read;
  }
  if (got->status == 404) {
    read.state = LeaseRead::State::kNotFound;
    return read;
  }
  if (got->status != 200) {
    Log("leader election: get lease: HTTP " + std::to_string(got->status) + ": " +
        BodyMessage(got->body));
    return read;
  }
  auto doc = api::json::ParseJson(got->body);
  if (!doc.ok()) {
    Log("leader election: get lease: " + doc.error());
    return read;
  }
  const api::Value* spec = doc->Find("spec");
  read.state = LeaseRead::State::kFound;
  read.record = Record{StringField(spec, "holderIdentity"), IntField(spec, "leaseDurationSeconds"),
                       StringField(spec, "acquireTime"), StringField(spec, "renewTime"),
                       IntField(spec, "leaseTransitions")};
  read.resource_version = StringField(doc->Find("metadata"), "resourceVersion");
  return read;
}

bool LeaderElector::CreateLease(const Record& mine) {
  auto created = client_.Do(LeaseRequest("POST", LeasePath() + kStrict, LeaseBody(mine, "")));
  if (!created.ok()) {
    Log("leader election: create lease: " + created.error());
    return false;
  }
  if (created->status != 200 && created->status != 201) {
    // 409: another candidate created it first.
    if (created->status != 409) {
      Log("leader election: create lease: HTTP " + std::to_string(created->status) + ": " +
          BodyMessage(created->body));
    }
    return false;
  }
  ObserveOwnWrite(mine);
  return true;
}

bool LeaderElector::MayTake(const Record& current) {
  // Expiry is judged by when *we* saw the record change, as client-go does.
  if (!have_observed_ || !(current == observed_record_)) {
    observed_record_ = current;
    have_observed_ = true;
    observed_time_ = SteadyClock::now();
  }
  ObserveHolder(current.holder);
  bool held_by_other = !current.holder.empty() && current.holder != config_.identity;
  return !held_by_other ||
         SteadyClock::now() >=
             observed_time_ + std::chrono::seconds(current.lease_duration_seconds);
}

bool LeaderElector::UpdateLease(const Record& next, const std::string& resource_version) {
  auto updated = client_.Do(LeaseRequest("PUT", LeasePath() + "/" + config_.lease_name + kStrict,
                                         LeaseBody(next, resource_version)));
  if (!updated.ok()) {
    Log("leader election: update lease: " + updated.error());
    return false;
  }
  if (updated->status != 200) {
    // 409: someone else updated it first (won the race or renewed).
    if (updated->status != 409) {
      Log("leader election: update lease: HTTP " + std::to_string(updated->status) + ": " +
          BodyMessage(updated->body));
    }
    return false;
  }
  ObserveOwnWrite(next);
  return true;
}

void LeaderElector::ObserveOwnWrite(const Record& written) {
  observed_record_ = written;
  have_observed_ = true;
  observed_time_ = SteadyClock::now();
  ObserveHolder(config_.identity);
}

void LeaderElector::Release() {
  // Give the lease up only if it is still ours: the PUT carries its resourceVersion.
  client::Request get;
  get.path = LeasePath() + "/" + config_.lease_name;
  get.retry = false;
  get.timeout = std::min(config_.renew_deadline, milliseconds(2000));
  auto got = client_.Do(get);
  if (!got.ok() || got->status != 200) {
    Log("leader election: release: could not read the lease");
    return;
  }
  auto doc = api::json::ParseJson(got->body);
  if (!doc.ok()) return;
  const api::Value* spec = doc->Find("spec");
  if (StringField(spec, "holderIdentity") != config_.identity) return;
  std::string now = NowMicroTime();
  Record released{"", 1, now, now, IntField(spec, "leaseTransitions")};
  client::Request put;
  put.method = "PUT";
  put.path = get.path + kStrict;
  put.body = LeaseBody(released, StringField(doc->Find("metadata"), "resourceVersion"));
  put.retry = false;
  put.timeout = get.timeout;
  auto updated = client_.Do(put);
  if (!updated.ok() || updated->status != 200) {
    Log("leader election: release: " +
        (updated.ok() ? "HTTP " + std::to_string(updated->status) : updated.error()));
    return;
  }
  Log("leader election: released lease " + config_.lease_namespace + "/" + config_.lease_name);
  std::lock_guard lock(leader_mu_);
  reported_leader_.clear();
}

void LeaderElector::Run() {
  std::uniform_real_distribution<double> jitter(0.0, kJitterFactor);
  while (!stop_) {
    // Campaign.
    while (!stop_ && !TryAcquireOrRenew()) {
      auto wait = milliseconds(static_cast<int64_t>(
          static_cast<double>(config_.retry_period.count()) * (1.0 + jitter(rng_))));
      if (!SleepFor(wait)) break;
    }
    if (stop_) break;
    leading_ = true;
    Log("leader election: " + config_.identity + " acquired lease " + config_.lease_namespace +
        "/" + config_.lease_name);
    if (config_.on_started_leading) config_.on_started_leading();

    // Renew until stopped or the renew deadline passes without a successful renewal.
    bool lost = false;
    while (!stop_ && !lost) {
      if (!SleepFor(config_.retry_period)) break;
      auto round_start = SteadyClock::now();
      for (;;) {
        if (TryAcquireOrRenew()) break;
        if (stop_) break;
        if (SteadyClock::now() - round_start >= config_.renew_deadline) {
          lost = true;
          break;
        }
        if (!SleepFor(config_.retry_period)) break;
      }
    }
    if (lost) {
      Log("leader election: " + config_.identity + " failed to renew lease " +
          config_.lease_namespace + "/" + config_.lease_name + " within " +
          Seconds(config_.renew_deadline) + "; stopped leading");
      leading_ = false;
      if (config_.on_stopped_leading) config_.on_stopped_leading();
    }
  }
  if (leading_) {
    if (config_.release_on_stop) Release();
    leading_ = false;
    if (config_.on_stopped_leading) config_.on_stopped_leading();
  }
}

}  // namespace berth::informers
