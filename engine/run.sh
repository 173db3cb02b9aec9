#!/bin/sh
# Starts the engine in the foreground (what supervisord and the Dockerfile's CMD run):
# prepares the sandbox slots and the engine's folders under $PRUTOR_VAR/engine, renders
# httpd.conf, then execs Apache (prefork + mod_php) as www-data. Starts as root only
# to prepare the slots (root-owned launcher config); Apache itself, master included,
# never runs as root (the setuid launcher is the one privileged piece).
# It refuses to start when the sandbox can only run `plain` (no namespaces, e.g. a
# container without the security options of engine/README.md) unless the admin opts
# in with SANDBOX_ALLOW_PLAIN=1. Settings: engine/README.md.
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
# The webapp (group PRUTOR_GROUP: a name natively, the webapp container's gid in
# compose) ships the telemetry spool and shows Apache's limits on its admin page;
# nobody else (the slot users least of all) reads either.
share=${PRUTOR_GROUP:-$ENGINE_USER}
chgrp "$share" "$PRUTOR_VAR/telemetry"
chmod 0771 "$PRUTOR_VAR/telemetry"
touch "$PRUTOR_VAR/telemetry/engine.jsonl"
chown "$ENGINE_USER:$share" "$PRUTOR_VAR/telemetry/engine.jsonl"
chmod 0640 "$PRUTOR_VAR/telemetry/engine.jsonl"
# The sandbox's isolation, decided before anything is served: namespaces, or the weaker
# plain mode only when the admin opted in (SANDBOX_ALLOW_PLAIN=1); otherwise refuse to start.
launcher=${SANDBOX_LAUNCHER:-/usr/local/lib/prutor/prutor-box}
probe=$(su -s /bin/sh "$ENGINE_USER" -c "'$launcher' probe '$ENGINE_VAR/box/$SANDBOX_SLOT_BASE' 3>&1 >/dev/null 2>&1" || true)
case "$probe:${SANDBOX_ISOLATION:-auto}" in
  *'"status":"ok"'*:auto | *'"status":"ok"'*:ns)
    via=$(printf '%s' "$probe" | sed -n 's/.*"via":"\([a-z]*\)".*/\1/p')
    echo "engine/run.sh: sandbox isolation: namespaces ($([ "$via" = direct ] && echo "made by the launcher" || echo bubblewrap))" >&2 ;;
  *)
    if [ "${SANDBOX_ALLOW_PLAIN:-0}" = 1 ]; then
      echo "engine/run.sh: WARNING: WEAK SANDBOX: plain isolation (uid + rlimits + seccomp, no namespaces): programs" \
           "see the host's world-readable files and /tmp; the admin opted in with SANDBOX_ALLOW_PLAIN=1" >&2
    else
      echo "engine/run.sh: refusing to start: the sandbox's namespaces do not work here (probe: ${probe:-no answer})" \
           "and plain isolation is not allowed. Give the engine user namespaces (see sandbox/README.md; in a container, the security options of engine/README.md, Container), or accept" \
           "the weaker plain isolation explicitly with SANDBOX_ALLOW_PLAIN=1." >&2
      exit 1
    fi ;;
esac
conf=$("$HERE/render-config.sh" "$ENGINE_VAR")
chown "$ENGINE_USER:$share" "$conf"
chmod 0640 "$conf"
# Replicas keep their folders apart; a copy of the config (the same in each) goes
# where the webapp's admin pages read it (compose: ENGINE_CONF_EXPORT, a shared volume).
if [ -n "${ENGINE_CONF_EXPORT:-}" ]; then
  mkdir -p "$ENGINE_CONF_EXPORT"
  cp "$conf" "$ENGINE_CONF_EXPORT/httpd.conf.$$"
  chown "$ENGINE_USER:$share" "$ENGINE_CONF_EXPORT/httpd.conf.$$"
  chmod 0640 "$ENGINE_CONF_EXPORT/httpd.conf.$$"
  mv -f "$ENGINE_CONF_EXPORT/httpd.conf.$$" "$ENGINE_CONF_EXPORT/httpd.conf"
fi
# -R: logs and pid files an older, root-started Apache left would stop this one (AH00091)
chown -R "$ENGINE_USER" "$ENGINE_VAR/logs" "$ENGINE_VAR/run"
[ -z "${SESSION_SECRET:-}" ] && echo "engine/run.sh: warning: SESSION_SECRET is empty, every session is refused" >&2
# PHP in Apache loads only the extensions the engine uses, not every one the packages
# enabled (curl, ftp, sockets, ffi, phar, xsl, ...: half of a worker's 535 memory maps):
# less to attack from a request, and each sandbox launch forks a smaller worker
# (fork to exec of the launcher measured 0.80 ms with all of them, 0.48 ms without).
phpconf=$ENGINE_VAR/php-conf.d
packaged=/etc/php/8.2/apache2/conf.d
rm -rf "$phpconf"
mkdir -p "$phpconf"
for ini in "$packaged"/*.ini; do
  case $(basename "$ini" .ini) in
    # memcached needs igbinary and msgpack loaded first (Debian builds it with both)
    *-mysqlnd | *-pdo | *-pdo_mysql | *-opcache | *-apcu | *-ctype | *-mbstring | *-igbinary | *-msgpack | *-memcached)
      ln -s "$ini" "$phpconf/" ;;
  esac
done
if ! ls "$phpconf"/*-pdo_mysql.ini "$phpconf"/*-memcached.ini "$phpconf"/*-apcu.ini >/dev/null 2>&1; then
  echo "engine/run.sh: refusing to start: PHP's pdo_mysql, memcached or apcu is not enabled in" \
       "$packaged (run engine/install.sh)" >&2
  exit 1
fi
export PHP_INI_SCAN_DIR=$phpconf
# Apache started as www-data keeps that user for its master and children (its User
# directive then changes nothing).
exec setpriv --reuid="$ENGINE_USER" --regid="$ENGINE_USER" --init-groups \
  apache2 -d "$ENGINE_VAR" -f "$conf" -D FOREGROUND
