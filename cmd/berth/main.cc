// berth: a secondary Kubernetes scheduler. Subcommands: simulate, run, extender, explain, version.
// This file only dispatches; each subcommand's Main lives in cmd/berth/app/<subcommand>/.
// Run as `kubectl-berth` (the kubectl plugin link the build makes), the arguments are berth's:
// `kubectl berth explain POD` runs `kubectl-berth explain POD`.

#include "cmd/berth/app/explain/main.h"

#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cmd/berth/app/activity.h"
#include "cmd/berth/app/extender/main.h"
#include "cmd/berth/app/flags.h"
#include "cmd/berth/app/run/main.h"
#include "cmd/berth/app/simulate/main.h"

int main(int argc, char** argv) {
  // At most two malloc arenas (unless MALLOC_ARENA_MAX says otherwise). glibc's default is up to
  // 8 per core, one per thread that allocates: objects decoded on an informer's thread and freed
  // on the scheduling or a binding thread left each arena with its own free space, and the
  // arenas' sum was a quarter of berth run's peak RSS on a 3000-pod backlog (59 -> 55 MB with 2;
  // throughput unchanged: threads seldom allocate at the same moment).
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 2);
  // A peer that closes a connection (API server, extender, scraper) must surface as a write error
  // on that connection, never kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2) {
    std::cerr << berth::app::kUsage;
    return 2;
  }
  // kubectl passes the flags typed before the subcommand (`kubectl berth --context C explain P`)
  // where they were: the subcommand goes first.
  std::vector<std::string> args(argv + 1, argv + argc);
  args = berth::app::SubcommandFirst(std::move(args),
                                     {"simulate", "run", "extender", "explain", "version", "help"});
  std::vector<char*> new_argv{argv[0]};
  for (auto& a : args) new_argv.push_back(a.data());
  new_argv.push_back(nullptr);
  argv = new_argv.data();

  const std::string cmd = argv[1];
  // Out of memory (a cluster file too big for the memory limit, say) is one line and exit 2,
  // never an abort with a core: the exception unwinds to here, freeing what the command held,
  // and nothing below allocates.
  try {
    if (cmd == "simulate") return berth::simulate::Main(argc, argv);
    if (cmd == "run") return berth::run::Main(argc, argv);
    if (cmd == "extender") return berth::extender_server::Main(argc, argv);
    if (cmd == "explain") return berth::explain::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    const char* what = berth::app::CurrentActivity();
    std::fprintf(stderr, "berth %s: out of memory%s%s%s\n", cmd.c_str(), *what ? " (while " : "",
                 what, *what ? ")" : "");
    return 2;
  }
  if (cmd == "version" || cmd == "--version") {
    std::cout << "berth " << berth::app::kVersion << "\n";
    return 0;
  }
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::cout << berth::app::kUsage;
    return 0;
  }
  std::cerr << "berth: unknown command \"" << cmd << "\"\n" << berth::app::kUsage;
  return 2;
}
