#!/usr/bin/env bash
# Builds helm v3.22.0 from the Go module proxy (helm.sh/helm/v3) with upstream's Makefile ldflags, so the
# default .Capabilities.KubeVersion is 1.34 rather than 1.20. The binary is cached under
# ${BERTH_CLUSTER_CACHE:-$HOME/.cache/berth-cluster}/helm-v3.22.0/bin/helm and built only when missing.
# Prints the path of the helm binary on stdout; build output goes to stderr.
set -euo pipefail
V=v3.22.0
cache=${BERTH_CLUSTER_CACHE:-$HOME/.cache/berth-cluster}
bin="$cache/helm-$V/bin"
if [ -x "$bin/helm" ]; then echo "$bin/helm"; exit 0; fi
mkdir -p "$bin"
command -v go >/dev/null || { echo "build_helm.sh: go not found on PATH" >&2; exit 1; }
# Build outside any module (go install pkg@version ignores the current module anyway); a temp GOBIN
# makes the final step an atomic rename, so a half-written binary is never taken as cached.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
echo "building helm $V from the Go module proxy ..." >&2
GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$tmp/bin" GOFLAGS=-buildvcs=false go install -trimpath -ldflags "-s -w \
  -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 \
  -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=34 \
  -X helm.sh/helm/v3/internal/version.version=$V \
  -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
  "helm.sh/helm/v3/cmd/helm@$V" >&2
mv "$tmp/bin/helm" "$bin/helm.tmp"
mv "$bin/helm.tmp" "$bin/helm"
echo "$bin/helm"
