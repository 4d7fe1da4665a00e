# syntax=docker/dockerfile:1
# berth container image: a Debian 12 build stage (the packages scripts/setup installs, CMake + Ninja,
# Release) and a distroless-style runtime stage: `FROM scratch` with the binary, the shared
# libraries it links, the dynamic loader, /etc/passwd for user 65532 and the CA bundle
# (scripts/runtime-rootfs lays it out; test/chart/test_runtime_rootfs.py runs berth from it). No
# shell, no package manager; the process runs as 65532:65532.
#
#   docker build -t <registry>/berth:0.1.0 .
#   helm install berth charts/berth -n berth-system --create-namespace \
#     --set image.repository=<registry>/berth --set image.tag=0.1.0
#
# The build ignores any build*/ folders in the context (it builds in /build), but a .dockerignore
# listing /build*/ (as .gitignore does) keeps the context small.

FROM debian:12 AS build
ARG BUILD_TYPE=Release
# scripts/setup's list less clang-format (GTest is needed to configure: the top-level CMakeLists
# adds test/).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config libboost-dev rapidjson-dev libyaml-cpp-dev \
      prometheus-cpp-dev libcli11-dev libre2-dev libssl-dev libgtest-dev libgmock-dev openssl curl python3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE} \
 && ninja -C /build berth \
 && strip /build/cmd/berth/berth \
 && scripts/runtime-rootfs /build/cmd/berth/berth /out \
 && chroot --userspec=65532:65532 /out /usr/local/bin/berth version

FROM scratch
COPY --from=build /out/ /
LABEL org.opencontainers.image.title="berth" \
      org.opencontainers.image.description="A C++ Kubernetes secondary scheduler" \
      org.opencontainers.image.version="0.1.0"
USER 65532:65532
# Secure port: /healthz /livez /readyz /metrics /configz over HTTPS.
EXPOSE 10259
# The Helm chart mounts the KubeSchedulerConfiguration at /etc/berth/config.yaml and passes
# `run --config /etc/berth/config.yaml --v N`; in a pod berth uses the in-cluster config.
ENTRYPOINT ["/usr/local/bin/berth"]
CMD ["run", "--config", "/etc/berth/config.yaml"]
