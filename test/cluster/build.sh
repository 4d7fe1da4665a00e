#!/usr/bin/env bash
# Builds upstream kube-apiserver, etcd and kube-scheduler from the Go module proxy, at the version
# in test/cluster/VERSION (go.mod is generated from it by test/cluster/bump).
# Binaries are cached under ${BERTH_CLUSTER_CACHE:-$HOME/.cache/berth-cluster}/<hash of go.sum>/
# and rebuilt only when go.sum changes. Prints the bin directory on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${BERTH_CLUSTER_CACHE:-$HOME/.cache/berth-cluster}
# The key hashes the contents only, so every checkout of the same versions shares the cache.
key=$(cat "$here/go.sum" "$here/go.mod" "$here/VERSION" | sha256sum | cut -c1-16)
bin="$cache/$key/bin"
want=(kube-apiserver etcd)
[ "${BERTH_WITH_SCHEDULER:-0}" = 1 ] && want+=(kube-scheduler)
[ "${BERTH_WITH_KUBECTL:-0}" = 1 ] && want+=(kubectl)
missing=0
for b in "${want[@]}"; do [ -x "$bin/$b" ] || missing=1; done
if [ $missing = 0 ]; then echo "$bin"; exit 0; fi
mkdir -p "$bin"
cd "$here"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
V=$(cat VERSION)
minor=${V#v1.}; minor=${minor%%.*}
if ! grep -q "k8s.io/kubernetes $V" go.mod; then
  echo "test/cluster: go.mod does not require k8s.io/kubernetes $V (VERSION); run test/cluster/bump" >&2
  exit 1
fi
LDF="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDF="$LDF -X $p.gitVersion=$V -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
done
TAGS=selinux,notest,grpcnotrace
for b in "${want[@]}"; do
  [ -x "$bin/$b" ] && continue
  case $b in
    etcd) pkg=go.etcd.io/etcd/server/v3; flags=(-ldflags="-s -w");;
    *) pkg=k8s.io/kubernetes/cmd/$b; flags=(-tags=$TAGS -ldflags="$LDF");;
  esac
  echo "building $b ..." >&2
  go build -trimpath "${flags[@]}" -o "$bin/$b.tmp" "$pkg" >&2
  mv "$bin/$b.tmp" "$bin/$b"
done
echo "$bin"
