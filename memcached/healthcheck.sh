#!/usr/bin/env bash
# The container's health check: memcached answers `version` on its port.
# (A script rather than an inline `bash -c`: Podman splits a health check's
# arguments at spaces.)
set -euo pipefail
exec 3<>"/dev/tcp/127.0.0.1/${MEMCACHED_PORT:-11211}"
printf 'version\r\n' >&3
timeout 2 head -n1 <&3 | grep -q '^VERSION'
