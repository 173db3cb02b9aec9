#!/usr/bin/env bash
# Writes the compose deployment's env file with fresh random secrets (DB_PASSWORD,
# SESSION_SECRET), mode 0600, OUTSIDE the repository; keeps a file that exists and
# adds only what it lacks. Then: docker compose --env-file FILE up -d --build
#   containers/secrets.sh /etc/prutor/compose.env
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
[ $# = 1 ] || { echo "usage: $0 ENV_FILE (outside the repository)" >&2; exit 2; }
file=$1
mkdir -p "$(dirname "$file")"
dir=$(cd "$(dirname "$file")" && pwd -P)
# (var/ is git-ignored: the containers test keeps its generated file there, as make up does)
case "$dir/" in "$ROOT"/var/*) ;; "$ROOT"/*) echo "$0: $file is inside the repository; keep secrets outside it" >&2; exit 2 ;; esac
random_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
(
  umask 077
  [ -f "$file" ] || printf '# Secrets of the prutor compose deployment (containers/secrets.sh). Never commit.\n' >"$file"
  grep -q '^DB_PASSWORD=' "$file" || echo "DB_PASSWORD=$(random_hex 16)" >>"$file"
  grep -q '^SESSION_SECRET=' "$file" || echo "SESSION_SECRET=$(random_hex 32)" >>"$file"
)
chmod 600 "$file"
echo "$file"
