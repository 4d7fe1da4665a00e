#!/usr/bin/env bash
# test/bench/nullbinder/build.sh: builds the null binder (the e2e benchmark's ceiling) and prints
# the binary's path. The binary is cached under
# ${BERTH_CLUSTER_CACHE:-$HOME/.cache/berth-cluster}/nullbinder-<hash>/nullbinder, the hash being
# of the Go sources, go.mod, go.sum and the Go version, so every checkout of the same sources
# shares it. Built like test/cluster/build.sh: GOTOOLCHAIN=local, CGO_ENABLED=0, -trimpath,
# modules from the module cache (GOFLAGS=-mod=mod). go.mod pins every module to test/cluster's
# version (test/cluster/bump regenerates it), so client-go's packages come from the build cache
# the cluster binaries filled.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v go >/dev/null 2>&1; then
  echo "test/bench/nullbinder: 'go' is not installed; install Go (https://go.dev/dl/) to run the e2e benchmark's ceiling" >&2
  exit 1
fi
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
cache=${BERTH_CLUSTER_CACHE:-$HOME/.cache/berth-cluster}
key=$( (cat "$here"/*.go "$here/go.mod" "$here/go.sum"; go version) | sha256sum | cut -c1-16)
bin="$cache/nullbinder-$key/nullbinder"
if [ ! -x "$bin" ]; then
  mkdir -p "$(dirname "$bin")"
  echo "building nullbinder ..." >&2
  (cd "$here" && go build -trimpath -ldflags="-s -w" -o "$bin.tmp" .) >&2
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
