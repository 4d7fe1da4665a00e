#include "scheduler/metrics/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace berth::metrics {

namespace {

prometheus::Gauge& NewGauge(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r).Add({});
}
prometheus::Counter& NewCounter(prometheus::Registry& r, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r).Add({});
}

// The fields of /proc/self/stat after the command name (field 3, "state", is [0]).
std::vector<std::string> StatFields() {
  std::ifstream f("/proc/self/stat");
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  auto close = all.rfind(')');
  if (close == std::string::npos) return out;
  std::istringstream rest(all.substr(close + 1));
  for (std::string field; rest >> field;) out.push_back(field);
  return out;
}

// btime from /proc/stat: boot time in seconds since the epoch, or -1.
double BootTime() {
  std::ifstream f("/proc/stat");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("btime ", 0) == 0) return std::stod(line.substr(6));
  }
  return -1;
}

int OpenFds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(d);
  return n - 1;  // the directory stream's own descriptor
}

// Bytes received and sent over every interface of /proc/self/net/dev.
bool NetworkBytes(double* rx, double* tx) {
  std::ifstream f("/proc/self/net/dev");
  if (!f) return false;
  std::string line;
  std::getline(f, line);  // two header lines
  std::getline(f, line);
  *rx = *tx = 0;
  while (std::getline(f, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream in(line.substr(colon + 1));
    std::vector<double> v;
    for (double x; in >> x;) v.push_back(x);
    if (v.size() < 9) continue;
    *rx += v[0];
    *tx += v[8];
  }
  return true;
}

}  // namespace

struct ProcessMetrics::Series {
  explicit Series(prometheus::Registry& r)
      : cpu(NewCounter(r, "process_cpu_seconds_total",
                       "Total user and system CPU time spent in seconds.")),
        rss(NewGauge(r, "process_resident_memory_bytes", "Resident memory size in bytes.")),
        vsize(NewGauge(r, "process_virtual_memory_bytes", "Virtual memory size in bytes.")),
        vmax(NewGauge(r, "process_virtual_memory_max_bytes",
                      "Maximum amount of virtual memory available in bytes.")),
        start(NewGauge(r, "process_start_time_seconds",
                       "Start time of the process since unix epoch in seconds.")),
        open_fds(NewGauge(r, "process_open_fds", "Number of open file descriptors.")),
        max_fds(NewGauge(r, "process_max_fds", "Maximum number of open file descriptors.")),
        rx(NewCounter(r, "process_network_receive_bytes_total",
                      "Number of bytes received by the process over the network.")),
        tx(NewCounter(r, "process_network_transmit_bytes_total",
                      "Number of bytes sent by the process over the network.")) {}

  prometheus::Counter& cpu;
  prometheus::Gauge& rss;
  prometheus::Gauge& vsize;
  prometheus::Gauge& vmax;
  prometheus::Gauge& start;
  prometheus::Gauge& open_fds;
  prometheus::Gauge& max_fds;
  prometheus::Counter& rx;
  prometheus::Counter& tx;
};

ProcessMetrics::ProcessMetrics(prometheus::Registry& registry)
    : s_(std::make_unique<Series>(registry)) {
  Sync();
}

ProcessMetrics::~ProcessMetrics() = default;

void ProcessMetrics::Sync() {
  std::lock_guard lock(mu_);
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  // Counters only go up: add the difference to what they show.
  auto advance = [](prometheus::Counter& c, double now) {
    if (now > c.Value()) c.Increment(now - c.Value());
  };
  std::vector<std::string> f = StatFields();
  // After ')': [11] utime, [12] stime, [19] starttime, [20] vsize, [21] rss (pages).
  if (f.size() > 21 && ticks > 0) {
    advance(s_->cpu, (std::stod(f[11]) + std::stod(f[12])) / ticks);
    if (double boot = BootTime(); boot >= 0) s_->start.Set(boot + std::stod(f[19]) / ticks);
    s_->vsize.Set(std::stod(f[20]));
    s_->rss.Set(std::stod(f[21]) * page);
  }
  if (int n = OpenFds(); n >= 0) s_->open_fds.Set(n);
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) s_->max_fds.Set(static_cast<double>(lim.rlim_cur));
  if (getrlimit(RLIMIT_AS, &lim) == 0) s_->vmax.Set(static_cast<double>(lim.rlim_cur));
  double rx = 0, tx = 0;
  if (NetworkBytes(&rx, &tx)) {
    advance(s_->rx, rx);
    advance(s_->tx, tx);
  }
}

}  // namespace berth::metrics
