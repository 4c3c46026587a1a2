# One image per sluice app, the app chosen by a build argument:
#   docker build --build-arg APP=router -t sluice/router:local .
# APP is gateway, admission, flow-controller, router, worker, autoscaler or cli (the `sluice` command).
# docker-compose.yml builds all of them; every stage before `ARG APP` is shared, so the build
# runs once and the images differ only in their last layers.
#
# Written for the classic builder as well as BuildKit (Debian's docker-compose 1.29 builds with
# the classic one): no heredocs, no cache mounts, no `# syntax` line (it would need a registry).
# infra/offline/build-images.sh reuses the runtime stage verbatim on machines without registries.

# Only the package manifests, so the `npm ci` layer below is rebuilt only when they change.
FROM node:24-bookworm-slim AS manifests
WORKDIR /src
COPY . .
RUN find . -type f ! -name package.json ! -name package-lock.json -delete \
 && find . -type d -empty -delete

FROM node:24-bookworm-slim AS build
WORKDIR /app
ENV NX_DAEMON=false NX_NO_CLOUD=true
COPY --from=manifests /src ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# The runtime tree in /out: production dependencies, each package's manifest and dist, the
# engine's latency profiles (read at run time), the example workloads (for `sluice run`), and a
# .sluice/runs for reports. infra/offline/build-images.sh stages the same tree from a host build.
# Pruning needs nothing that `npm ci` did not fetch: --offline keeps it off the network.
RUN npm prune --omit=dev --offline --no-audit --no-fund \
 && mkdir -p /out/.sluice/runs \
 && cp -a package.json node_modules examples /out/ \
 && for pkg in apps/* libs/*; do \
      mkdir -p "/out/$pkg" \
      && cp -a "$pkg/package.json" "$pkg/dist" "/out/$pkg/" \
      && if [ -d "$pkg/profiles" ]; then cp -a "$pkg/profiles" "/out/$pkg/"; fi; \
    done

# The runtime stage uses nothing but COPY, ENV and metadata (no RUN): the offline base image
# has no shell tools to run.
FROM node:24-bookworm-slim AS runtime
WORKDIR /app
# The code is root's and read-only to the app; only .sluice (run reports) is the app's.
COPY --from=build /out /app
COPY --from=build --chown=node:node /out/.sluice /app/.sluice
USER node
# Inside a container every service listens on all interfaces (the defaults are loopback).
ENV SLUICE_GATEWAY__HOST=0.0.0.0 \
    SLUICE_ADMISSION__HOST=0.0.0.0 \
    SLUICE_FLOW_CONTROLLER__HOST=0.0.0.0 \
    SLUICE_ROUTER__HOST=0.0.0.0 \
    SLUICE_WORKER__HOST=0.0.0.0 \
    SLUICE_AUTOSCALER__HOST=0.0.0.0
# Default ports of gateway, admission, flow-controller, router, worker, autoscaler.
EXPOSE 8080 9099 9101 9102 9103 9104

ARG APP
# Not SLUICE_APP: every SLUICE_* variable is a config key.
ENV APP=${APP}
# Healthy = /readyz answers 200 (NATS connected, not shutting down), on the app's port: its
# config key from the environment, else the default. The cli has no server and is always healthy.
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=3 \
  CMD node -e ' \
    const known = { gateway: ["GATEWAY", 8080], admission: ["ADMISSION", 9101], "flow-controller": ["FLOW_CONTROLLER", 9102], router: ["ROUTER", 9103], worker: ["WORKER", 9104], autoscaler: ["AUTOSCALER", 9099] }[process.env.APP]; \
    if (!known) process.exit(0); \
    const port = process.env[`SLUICE_${known[0]}__PORT`] || known[1]; \
    fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1));'
# `docker run IMAGE --worker.instances=8` passes flags to the app; node runs as PID 1 (exec), so
# SIGTERM reaches the service's graceful shutdown. The V8 flags after --enable-source-maps are the
# launcher's SERVICE_NODE_FLAGS (libs/launcher/src/service-node-flags.ts says why; a spec keeps
# the two equal).
ENTRYPOINT ["/bin/sh", "-c", "if [ ! -f \"apps/$APP/dist/main.js\" ]; then echo \"sluice image: APP='$APP' is not one of gateway, admission, flow-controller, router, worker, autoscaler, cli\" >&2; exit 2; fi; exec node --enable-source-maps --max-semi-space-size=16 --heap-growing-percent=50 \"apps/$APP/dist/main.js\" \"$@\"", "sluice"]
CMD []
