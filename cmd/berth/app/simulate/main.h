#pragma once
// `berth simulate`: flags -> config, extenders and cluster file -> simulate::Run -> JSON on
// stdout. Returns the process exit code (2 on a usage or input error).

namespace berth::simulate {

int Main(int argc, char** argv);

}  // namespace berth::simulate
