#!/bin/sh
# Starts the engine in the foreground (what supervisord and the Dockerfile's CMD run):
# prepares the sandbox slots and the engine's folders under $PRUTOR_VAR/engine, renders
# httpd.conf, then execs Apache (prefork + mod_php). Runs as root (Apache drops to
# www-data; the sandbox launcher is setuid). Settings: see engine/README.md.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
export PRUTOR_VAR=${PRUTOR_VAR:-$REPO/var}
export ENGINE_VAR=${ENGINE_VAR:-$PRUTOR_VAR/engine}
ENGINE_USER=${ENGINE_USER:-www-data}
[ "$(id -u)" = 0 ] || { echo "engine/run.sh: must run as root (Apache switches to $ENGINE_USER)" >&2; exit 1; }
[ -x "${SANDBOX_LAUNCHER:-/usr/local/lib/prutor/prutor-box}" ] || "$REPO/sandbox/install.sh"
# Apache's children and the sandbox slots read the code and the box root as other users.
if ! su -s /bin/sh "$ENGINE_USER" -c "test -r '$HERE/public/index.php'"; then
  echo "engine/run.sh: $ENGINE_USER cannot read $HERE/public: a parent folder is not" \
       "traversable by other users (e.g. a checkout under /root); clone the repository" \
       "under a world-traversable folder such as /srv or /work" >&2
  exit 1
fi

export ENGINE_SLOTS=${ENGINE_SLOTS:-$(nproc)}
export SANDBOX_SLOT_BASE=${SANDBOX_SLOT_BASE:-0}
mkdir -p "$ENGINE_VAR" "$PRUTOR_VAR/telemetry"
chmod 0711 "$PRUTOR_VAR" "$ENGINE_VAR"
"$REPO/sandbox/setup-box.sh" "$ENGINE_VAR/box" "$SANDBOX_SLOT_BASE" "$ENGINE_SLOTS"
for d in cache locks io jobe-files; do
  mkdir -p "$ENGINE_VAR/$d"
  chown "$ENGINE_USER" "$ENGINE_VAR/$d"
  chmod 0700 "$ENGINE_VAR/$d"
done
touch "$PRUTOR_VAR/telemetry/engine.jsonl"
chown "$ENGINE_USER" "$PRUTOR_VAR/telemetry/engine.jsonl"
chmod 0640 "$PRUTOR_VAR/telemetry/engine.jsonl"
# The sandbox's isolation, decided before anything is served: namespaces, or the weaker
# plain mode only when the admin opted in (SANDBOX_ALLOW_PLAIN=1); otherwise refuse to start.
launcher=${SANDBOX_LAUNCHER:-/usr/local/lib/prutor/prutor-box}
probe=$(su -s /bin/sh "$ENGINE_USER" -c "'$launcher' probe '$ENGINE_VAR/box/$SANDBOX_SLOT_BASE' 3>&1 >/dev/null 2>&1" || true)
case "$probe:${SANDBOX_ISOLATION:-auto}" in
  *'"status":"ok"'*:auto | *'"status":"ok"'*:ns) echo "engine/run.sh: sandbox isolation: namespaces (bubblewrap)" >&2 ;;
  *)
    if [ "${SANDBOX_ALLOW_PLAIN:-0}" = 1 ]; then
      echo "engine/run.sh: WARNING: WEAK SANDBOX: plain isolation (uid + rlimits + seccomp, no namespaces): programs" \
           "see the host's world-readable files and /tmp; the admin opted in with SANDBOX_ALLOW_PLAIN=1" >&2
    else
      echo "engine/run.sh: refusing to start: the sandbox's namespaces do not work here (probe: ${probe:-no answer})" \
           "and plain isolation is not allowed. Give the engine user namespaces (see sandbox/README.md), or accept" \
           "the weaker plain isolation explicitly with SANDBOX_ALLOW_PLAIN=1." >&2
      exit 1
    fi ;;
esac
conf=$("$HERE/render-config.sh" "$ENGINE_VAR")
chmod 0640 "$conf"
chown "$ENGINE_USER" "$ENGINE_VAR/logs"
[ -z "${SESSION_SECRET:-}" ] && echo "engine/run.sh: warning: SESSION_SECRET is empty, every session is refused" >&2
exec apache2 -d "$ENGINE_VAR" -f "$conf" -D FOREGROUND
