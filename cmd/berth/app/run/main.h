#pragma once
// `berth run`: flags -> DaemonOptions -> Daemon, with SIGTERM / SIGINT requesting shutdown.
// Returns the process exit code (2 on a usage or config error, else the Daemon's).

namespace berth::run {

int Main(int argc, char** argv);

}  // namespace berth::run
