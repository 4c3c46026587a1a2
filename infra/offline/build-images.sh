#!/usr/bin/env bash
# Build local stand-ins, under their public names, for every image docker-compose.yml and the
# Testcontainers suites use, on a machine that reaches no container registry (and whose
# containers reach no npm registry either).
#
#   nats        nats:2.10-alpine            from Debian's nats-server
#   prometheus  prom/prometheus:v2.53.0     from Debian's prometheus
#   node        node:24-bookworm-slim       from the host's Node 24 (and npm), via docker import
#   sluice      sluice/<app>:local          the apps: the root Dockerfile's runtime stage on top
#                                           of the host's build (dist, node_modules)
#
# Each base image is a scratch rootfs: a binary plus the shared libraries `ldd` reports, tarred
# and `docker import`ed with a config (ENTRYPOINT/CMD/USER/...) close to the real image's.
# The sluice images skip the Dockerfile's build stage (npm ci needs the registry): the host's
# build is staged and imported in its place, and the Dockerfile's runtime stage copies from it.
# jaegertracing/all-in-one and grafana/grafana cannot be assembled like this (no Debian
# packages); docker-compose.offline.yml runs the stack without them.
#
# Usage: infra/offline/build-images.sh [--force] [IMAGE...]
#   --force      rebuild base images even if the tag already exists (a real image is replaced!)
#   IMAGE...     only build these (nats, prometheus, node, sluice); default: all of them
# The sluice images are always rebuilt (they must match the working tree; docker's layer cache
# keeps an unchanged rebuild cheap). They need `npm run build` first.
set -euo pipefail

ALL_IMAGES=(nats prometheus node sluice)
# The apps, each an image sluice/<app>:local (the names docker-compose.yml uses).
SLUICE_APPS=(gateway admission flow-controller router worker autoscaler cli)
SLUICE_TAG=local
# The staged host build as an image; an intermediate tag, removed once the apps are built.
TREE_TAG="sluice/offline-tree:$SLUICE_TAG"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

FORCE=false
SELECTED=()
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=true ;;
    -h | --help)
      sed -n '2,23p' "$0"
      exit 0
      ;;
    -*)
      echo "unknown option: $arg" >&2
      exit 2
      ;;
    *) SELECTED+=("$arg") ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=("${ALL_IMAGES[@]}")

WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/sluice-images.XXXXXX")"
trap 'rm -rf "$WORK_DIR"' EXIT

# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

# Exit with an apt hint if a host binary the image is built from is missing.
require_bin() { # <path> <apt package>
  if [[ ! -x "$1" ]]; then
    echo "error: $1 not found; install it with: apt-get install -y $2" >&2
    exit 1
  fi
}

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }
image_id() { docker image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }

# True (and says so) when a base image is already there and --force was not given.
skip_existing() { # <tag>
  if ! $FORCE && image_exists "$1"; then
    echo "$1: exists, skipped (use --force to rebuild)"
    return 0
  fi
  return 1
}

# After re-tagging, drop the previous image it replaced (kept if a container still uses it).
drop_replaced() { # <old id> <tag>
  if [[ -n "$1" && "$1" != "$(image_id "$2")" ]]; then
    docker image rm "$1" >/dev/null 2>&1 || true
  fi
}

millis() { echo $((${EPOCHREALTIME/./} / 1000)); }

# Copy a binary into the rootfs at <dest> together with every shared library
# (and the ELF interpreter) it links against, at the same absolute paths, so it
# runs in an otherwise empty image. Static binaries just get copied.
install_bin() { # <rootfs> <host binary> <dest path in rootfs>
  local rootfs="$1" src="$2" dest="$3" lib
  install -D -m 0755 "$src" "$rootfs$dest"
  # ldd lines look like "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)"
  # or "/lib64/ld-linux-x86-64.so.2 (0x...)"; a static binary prints
  # "not a dynamic executable" and exits non-zero, hence `|| true`.
  while read -r lib; do
    [[ -e "$rootfs$lib" ]] && continue
    # Store the real file even where the host path is a symlink (merged /usr).
    install -D -m 0755 "$(readlink -f "$lib")" "$rootfs$lib"
  done < <( (ldd "$src" 2>/dev/null || true) | grep -oE '/[^ ]+' | sort -u)
}

# Minimal /etc and /tmp that most servers expect to exist.
base_rootfs() { # <rootfs>
  local rootfs="$1"
  mkdir -p "$rootfs"/{etc,tmp,bin,usr/local/bin,proc,sys,dev}
  chmod 1777 "$rootfs/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' \
    >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  printf 'hosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
}

# Tar the rootfs and import it as <tag>. Everything is owned by root (numeric ids, whoever runs
# this), except the directories listed in <owned> ("path:uid ..."), which the image's non-root
# user must be able to write: they are appended to the tar with that owner.
import_rootfs() { # <rootfs> <tag> <owned> [docker import --change args...]
  local rootfs="$1" tag="$2" owned="$3" old tarball entry path uid
  shift 3
  tarball="$WORK_DIR/$(echo "$tag" | tr '/:' '__').tar"
  local excludes=()
  for entry in $owned; do excludes+=("--exclude=./${entry%%:*}"); done
  tar --numeric-owner --owner=0 --group=0 "${excludes[@]}" -C "$rootfs" -cf "$tarball" .
  for entry in $owned; do
    path="${entry%%:*}" uid="${entry##*:}"
    tar --numeric-owner --owner="$uid" --group="$uid" -C "$rootfs" -rf "$tarball" "./$path"
  done
  old="$(image_id "$tag")"
  docker import --message "sluice local stand-in for $tag" "$@" "$tarball" "$tag" >/dev/null
  drop_replaced "$old" "$tag"
}

# ---------------------------------------------------------------------------
# images
# ---------------------------------------------------------------------------

# nats:2.10-alpine from Debian's nats-server (note: Debian 12 ships 2.9.x; the
# flags and log lines we rely on - -p, -m, -js, --user/--pass,
# "Server is ready" - are the same).
# Like the real image, the entrypoint prepends `nats-server` when the first
# argument is a flag, so both `-p 4222 -js` (compose, plain GenericContainer)
# and `nats-server --user u ...` (@testcontainers/nats) work. That needs a
# /bin/sh, so Debian's dash is included (it only needs libc, already present).
build_nats() {
  local tag="nats:2.10-alpine" rootfs="$WORK_DIR/nats"
  skip_existing "$tag" && return
  require_bin /usr/sbin/nats-server nats-server
  require_bin /bin/dash dash

  base_rootfs "$rootfs"
  install_bin "$rootfs" /usr/sbin/nats-server /usr/local/bin/nats-server
  install_bin "$rootfs" /bin/dash /bin/sh
  # docker-compose.yml's healthcheck probes the monitoring port's /healthz with wget, as the
  # real image's busybox does.
  if [[ -x /usr/bin/wget ]]; then install_bin "$rootfs" /usr/bin/wget /usr/bin/wget; fi

  cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
# No args, or first arg is a flag: run nats-server with them (as the real image).
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
  set -- nats-server "$@"
fi
exec "$@"
EOF
  chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"

  # Same defaults as the real image's /etc/nats/nats-server.conf.
  mkdir -p "$rootfs/etc/nats"
  cat >"$rootfs/etc/nats/nats-server.conf" <<'EOF'
port: 4222
monitor_port: 8222
cluster {
  name: "my_cluster"
  port: 6222
  authorization {
    user: ruser
    password: T0pS3cr3t
    timeout: 2
  }
  routes = []
}
EOF

  local t0
  t0=$(millis)
  import_rootfs "$rootfs" "$tag" "" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    --change 'CMD ["nats-server", "--config", "/etc/nats/nats-server.conf"]' \
    --change 'EXPOSE 4222 6222 8222'
  echo "$tag: built from $(/usr/sbin/nats-server --version 2>&1 | head -n1) in $(($(millis) - t0)) ms"
}

# prom/prometheus from Debian's prometheus (Debian 12 ships 2.42; the config keys sluice uses -
# static_configs, dns_sd_configs - and the HTTP API are the same). Paths, user (nobody), volume
# and default command are the real image's, so compose files work unchanged.
build_prometheus() {
  local tag="prom/prometheus:v2.53.0" rootfs="$WORK_DIR/prometheus"
  skip_existing "$tag" && return
  require_bin /usr/bin/prometheus prometheus
  require_bin /bin/dash dash

  base_rootfs "$rootfs"
  install_bin "$rootfs" /usr/bin/prometheus /bin/prometheus
  if [[ -x /usr/bin/promtool ]]; then install_bin "$rootfs" /usr/bin/promtool /bin/promtool; fi
  # docker-compose.yml's healthcheck probes /-/ready with wget, as the real image's busybox does.
  if [[ -x /usr/bin/wget ]]; then install_bin "$rootfs" /usr/bin/wget /usr/bin/wget; fi
  install_bin "$rootfs" /bin/dash /bin/sh
  mkdir -p "$rootfs/usr/share/prometheus" "$rootfs/etc/prometheus" "$rootfs/prometheus"
  # Debian's build serves its web UI from here rather than from assets compiled in.
  if [[ -d /usr/share/prometheus/web ]]; then cp -a /usr/share/prometheus/web "$rootfs/usr/share/prometheus/"; fi
  local dir
  for dir in console_libraries consoles; do
    if [[ -d "/etc/prometheus/$dir" ]]; then
      cp -a "/etc/prometheus/$dir" "$rootfs/usr/share/prometheus/$dir"
    else
      mkdir -p "$rootfs/usr/share/prometheus/$dir"
    fi
  done
  # The real image's default: Prometheus scraping itself.
  cat >"$rootfs/etc/prometheus/prometheus.yml" <<'EOF'
global:
  scrape_interval: 15s
scrape_configs:
  - job_name: prometheus
    static_configs:
      - targets: ["localhost:9090"]
EOF

  local t0
  t0=$(millis)
  import_rootfs "$rootfs" "$tag" "prometheus:65534" \
    --change 'USER nobody' \
    --change 'WORKDIR /prometheus' \
    --change 'EXPOSE 9090' \
    --change 'VOLUME ["/prometheus"]' \
    --change 'ENTRYPOINT ["/bin/prometheus"]' \
    --change 'CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus", "--web.console.libraries=/usr/share/prometheus/console_libraries", "--web.console.templates=/usr/share/prometheus/consoles"]'
  echo "$tag: built from $(/usr/bin/prometheus --version 2>&1 | head -n1) in $(($(millis) - t0)) ms"
}

# The host's Node 24: $NODE24 if set, else ~/.local/node24 (where .ci/run installs it), else
# `node` on PATH, whichever is version 24 (the image is node:24-*).
find_node24() {
  local candidate
  for candidate in "${NODE24:-}" "$HOME/.local/node24/bin/node" "$(command -v node || true)"; do
    [[ -n "$candidate" && -x "$candidate" ]] || continue
    if [[ "$("$candidate" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" == 24 ]]; then
      readlink -f "$candidate"
      return
    fi
  done
  echo "error: no Node 24 binary found (set NODE24=/path/to/node)" >&2
  exit 1
}

# node:24-bookworm-slim: node (+ its libraries), npm if the host has one, /bin/sh, and the real
# image's `node` user (uid 1000) and entrypoint. Enough to run the apps; it has no apt, coreutils
# or compilers, so only the sluice runtime stage (COPY, ENV, USER) builds on it.
build_node() {
  local tag="node:24-bookworm-slim" rootfs="$WORK_DIR/node" node npm_dir
  skip_existing "$tag" && return
  require_bin /bin/dash dash
  node="$(find_node24)"

  base_rootfs "$rootfs"
  printf 'node:x:1000:1000::/home/node:/bin/sh\n' >>"$rootfs/etc/passwd"
  printf 'node:x:1000:\n' >>"$rootfs/etc/group"
  mkdir -p "$rootfs/home/node"
  install_bin "$rootfs" "$node" /usr/local/bin/node
  install_bin "$rootfs" /bin/dash /bin/sh
  # npm is JavaScript; its launchers call node directly since the image has no /usr/bin/env.
  npm_dir="$(dirname "$(readlink -f "$(command -v npm || echo /nonexistent)")")/.."
  if [[ -f "$npm_dir/bin/npm-cli.js" ]]; then
    mkdir -p "$rootfs/usr/local/lib/node_modules"
    cp -a "$(readlink -f "$npm_dir")" "$rootfs/usr/local/lib/node_modules/npm"
    local tool
    for tool in npm npx; do
      printf '#!/bin/sh\nexec node /usr/local/lib/node_modules/npm/bin/%s-cli.js "$@"\n' "$tool" >"$rootfs/usr/local/bin/$tool"
      chmod 0755 "$rootfs/usr/local/bin/$tool"
    done
  fi
  cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
# As the real image: a first argument that is a flag or not a command goes to node.
if [ "${1#-}" != "$1" ] || ! command -v "$1" >/dev/null 2>&1; then
  set -- node "$@"
fi
exec "$@"
EOF
  chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"

  local t0 version
  t0=$(millis)
  version="$("$node" --version)"
  import_rootfs "$rootfs" "$tag" "home/node:1000" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=${version#v}" \
    --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
    --change 'CMD ["node"]'
  echo "$tag: built from node $version in $(($(millis) - t0)) ms"
}

# What the Dockerfile's build stage collects in /out, staged from the host's build: production
# dependencies, each package's manifest and dist, the engine's profiles, the example workloads,
# and an empty .sluice/runs for `sluice run` reports. Keep in step with the Dockerfile.
stage_runtime_tree() { # <dest>
  local out="$1" pkg
  mkdir -p "$out/.sluice/runs"
  cp -a "$REPO_ROOT/package.json" "$REPO_ROOT/package-lock.json" "$REPO_ROOT/node_modules" "$REPO_ROOT/examples" "$out/"
  for pkg in "$REPO_ROOT"/apps/* "$REPO_ROOT"/libs/*; do
    pkg="${pkg#"$REPO_ROOT"/}"
    mkdir -p "$out/$pkg"
    cp -a "$REPO_ROOT/$pkg/package.json" "$REPO_ROOT/$pkg/dist" "$out/$pkg/"
    if [[ -d "$REPO_ROOT/$pkg/profiles" ]]; then cp -a "$REPO_ROOT/$pkg/profiles" "$out/$pkg/"; fi
  done
  # Drop dev dependencies (build tools, test runners) as the Dockerfile does; npm works from the
  # lockfile and the installed tree, no registry needed.
  (cd "$out" && npm prune --omit=dev --offline --no-audit --no-fund --loglevel=error >/dev/null)
  rm -rf "$out/package-lock.json" "$out/node_modules/.cache" "$out/node_modules/.vitest-cache"
}

# sluice/<app>:local, one per app, from the host's build and the Dockerfile's runtime stage.
build_sluice() {
  local ctx="$WORK_DIR/sluice" app missing=()
  command -v npm >/dev/null 2>&1 || { echo "error: npm not found" >&2; exit 1; }
  for app in "${SLUICE_APPS[@]}"; do
    [[ -f "$REPO_ROOT/apps/$app/dist/main.js" ]] || missing+=("apps/$app/dist/main.js")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "error: ${missing[*]} not built; run \`npm run build\` first" >&2
    exit 1
  fi
  image_exists node:24-bookworm-slim || build_node

  local t0
  t0=$(millis)
  # The staged tree becomes an image that stands in for the build stage: the Dockerfile's
  # runtime stage then runs verbatim, copying from it instead of from `build`, so the offline
  # images differ from the online ones only in where the files were built. (docker import
  # takes the tree as one tar stream, much faster than sending it as a build context.)
  stage_runtime_tree "$ctx/out"
  tar --numeric-owner --owner=0 --group=0 -C "$ctx" -cf - out |
    docker import --message "sluice: the host's build, standing in for the Dockerfile's build stage" - "$TREE_TAG" >/dev/null
  if ! grep -q '^FROM node:24-bookworm-slim AS runtime$' "$REPO_ROOT/Dockerfile"; then
    echo "error: Dockerfile has no 'FROM node:24-bookworm-slim AS runtime' stage" >&2
    exit 1
  fi
  mkdir -p "$ctx/app"
  sed -n '/^FROM node:24-bookworm-slim AS runtime$/,$p' "$REPO_ROOT/Dockerfile" |
    sed "s#--from=build #--from=$TREE_TAG #" >"$ctx/app/Dockerfile"

  local tag old=""
  for app in "${SLUICE_APPS[@]}"; do
    tag="sluice/$app:$SLUICE_TAG"
    old="$old $(image_id "$tag")"
    # The first build makes the shared layers; the others find them in the cache.
    classic_build "$tag" "$ctx/app" --build-arg "APP=$app"
  done
  docker image rm "$TREE_TAG" >/dev/null 2>&1 || true
  # Superseded builds go: those left without a tag (an unchanged rebuild keeps its image).
  for id in $old; do
    if [[ "$(docker image inspect --format '{{len .RepoTags}}' "$id" 2>/dev/null)" == 0 ]]; then
      docker image rm "$id" >/dev/null 2>&1 || true
    fi
  done
  echo "sluice/{$(
    IFS=,
    echo "${SLUICE_APPS[*]}"
  )}:$SLUICE_TAG: built from the host's build in $(($(millis) - t0)) ms"
}

# docker build with the classic builder, quietly, showing its output only on failure. Classic:
# BuildKit may try to resolve the base image in a registry.
classic_build() { # <tag> <context dir> [docker build args...]
  local tag="$1" dir="$2"
  shift 2
  if ! DOCKER_BUILDKIT=0 docker build --quiet "$@" -t "$tag" "$dir" >/dev/null 2>"$WORK_DIR/build.err"; then
    echo "error: building $tag failed:" >&2
    cat "$WORK_DIR/build.err" >&2
    exit 1
  fi
}

# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

if ! command -v docker >/dev/null 2>&1; then
  echo "error: docker CLI not found; install it with: apt-get install -y docker.io" >&2
  exit 1
fi
if ! docker info >/dev/null 2>&1; then
  echo "error: cannot reach the Docker daemon (is dockerd running?)" >&2
  exit 1
fi

for name in "${SELECTED[@]}"; do
  if ! declare -F "build_$name" >/dev/null; then
    echo "error: no image named '$name' (known: ${ALL_IMAGES[*]})" >&2
    exit 2
  fi
  "build_$name"
done
