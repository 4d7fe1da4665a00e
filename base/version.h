#pragma once
// berth's version (`berth version`, berth_build_info) and the upstream kube-scheduler version
// whose behaviour it matches (test/cluster/VERSION builds the same one as the tests' oracle).

namespace berth {

inline constexpr const char kBerthVersion[] = "0.1.0";
inline constexpr const char kUpstreamVersion[] = "v1.37.2";

}  // namespace berth
