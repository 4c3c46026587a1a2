#!/usr/bin/env bash
# Build local stand-ins for the public container images that our tests
# (Testcontainers) and infra/compose use, entirely offline.
#
# CI and dev sandboxes cannot reach Docker Hub, so each image is assembled from
# Debian-packaged binaries: copy the binary and the shared libraries `ldd`
# reports into a scratch rootfs, tar it, and `docker import` it under the public
# name and tag. The image config (ENTRYPOINT/CMD/EXPOSE/ENV) mirrors the real
# image closely enough for our use.
#
# Usage: infra/images/build-local-images.sh [--force] [IMAGE...]
#   --force      rebuild even if the image tag already exists
#   IMAGE...     only build these (e.g. `nats`); default: all of them
#
# To add an image: write a build_<name> function below and add <name> to ALL_IMAGES.
set -euo pipefail

ALL_IMAGES=(nats)

FORCE=false
SELECTED=()
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=true ;;
    -h | --help)
      sed -n '2,15p' "$0"
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

# Tar the rootfs (owned by root, numeric ids) and import it as <tag>.
import_rootfs() { # <rootfs> <tag> [docker import --change args...]
  local rootfs="$1" tag="$2" old
  shift 2
  old="$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
  tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -cf - . |
    docker import --message "sluice local stand-in for $tag" "$@" - "$tag" >/dev/null
  # On --force, drop the now-untagged previous image (kept if a container uses it).
  if [[ -n "$old" && "$old" != "$(docker image inspect --format '{{.Id}}' "$tag")" ]]; then
    docker image rm "$old" >/dev/null 2>&1 || true
  fi
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
  if ! $FORCE && image_exists "$tag"; then
    echo "$tag: exists, skipped (use --force to rebuild)"
    return
  fi
  require_bin /usr/sbin/nats-server nats-server
  require_bin /bin/dash dash

  base_rootfs "$rootfs"
  install_bin "$rootfs" /usr/sbin/nats-server /usr/local/bin/nats-server
  install_bin "$rootfs" /bin/dash /bin/sh

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

  local t0=${EPOCHREALTIME/./}
  import_rootfs "$rootfs" "$tag" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    --change 'CMD ["nats-server", "--config", "/etc/nats/nats-server.conf"]' \
    --change 'EXPOSE 4222 6222 8222'
  echo "$tag: built from $(/usr/sbin/nats-server --version 2>&1 | head -n1) in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
}

# Future images go here, e.g.:
#   build_prometheus  -> prom/prometheus:<tag> from Debian's `prometheus` package
#   build_sluice      -> the sluice service image

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
