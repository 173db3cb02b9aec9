#!/usr/bin/env bash
# Runs memcached in the foreground (what supervisord runs). It holds sessions only
# (thesis lesson 4: no query cache in front of MySQL); clients keep pooled,
# persistent connections, so MEMCACHED_MAX_CONN bounds workers x pool size.
set -euo pipefail
: "${MEMCACHED_HOST:=127.0.0.1}" "${MEMCACHED_PORT:=11211}"
: "${MEMCACHED_MEMORY_MB:=64}" "${MEMCACHED_MAX_CONN:=4096}" "${MEMCACHED_THREADS:=4}"
# memcached refuses to run as root without -u; the Debian package's user does.
user_opt=()
[ "$(id -u)" -eq 0 ] && user_opt=(-u "${MEMCACHED_USER:-memcache}")
# -U 0: no UDP (amplification vector, and sessions need none)
exec memcached "${user_opt[@]}" -l "$MEMCACHED_HOST" -p "$MEMCACHED_PORT" -U 0 \
  -m "$MEMCACHED_MEMORY_MB" -c "$MEMCACHED_MAX_CONN" -t "$MEMCACHED_THREADS"
