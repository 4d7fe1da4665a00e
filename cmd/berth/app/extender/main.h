#pragma once
// `berth extender`: flags -> ServerOptions -> extender_server::Server, with SIGTERM / SIGINT
// requesting shutdown. Returns the process exit code (2 on a usage or config error).

namespace berth::extender_server {

int Main(int argc, char** argv);

}  // namespace berth::extender_server
