# syntax=docker/dockerfile:1
# berth container image: a Debian 12 build stage (the packages scripts/setup installs, CMake + Ninja,
# Release) and a debian:12-slim runtime stage with only the shared libraries berth links.
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
      prometheus-cpp-dev libcli11-dev libssl-dev libgtest-dev libgmock-dev openssl curl python3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE} \
 && ninja -C /build berth \
 && install -D -m 0755 -s /build/cmd/berth/berth /out/usr/local/bin/berth \
 && /out/usr/local/bin/berth version

FROM debian:12-slim
# Runtime libraries of the build stage's -dev packages (Debian 12 names): yaml-cpp 0.7, OpenSSL 3,
# prometheus-cpp core 1.0. libstdc++6 and libgcc-s1 are already in the slim image.
# ca-certificates: for kubeconfigs whose API server has a publicly trusted certificate.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libyaml-cpp0.7 libssl3 libprometheus-cpp-core1.0 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 nonroot \
 && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin nonroot
COPY --from=build /out/ /
# Fail the image build, not the pod, if a shared library is missing.
RUN if ldd /usr/local/bin/berth | grep 'not found'; then exit 1; fi
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
