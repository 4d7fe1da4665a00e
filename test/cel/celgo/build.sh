#!/usr/bin/env bash
# test/cel/celgo/build.sh OUTDIR: builds the cel-go reference evaluator into OUTDIR/celgo-<hash>
# (hash of main.go, go.mod, go.sum) unless it is already there, and prints its path. Everything
# comes from the Go module cache (GOFLAGS=-mod=mod, GOTOOLCHAIN=local).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh OUTDIR}
if ! command -v go >/dev/null 2>&1; then
  echo "test/cel/celgo: 'go' is not installed; install Go (https://go.dev/dl/) to run the CEL differential test" >&2
  exit 1
fi
key=$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-16)
bin="$out/celgo-$key"
if [ ! -x "$bin" ]; then
  mkdir -p "$out"
  cd "$here"
  GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$bin.tmp" . >&2
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
