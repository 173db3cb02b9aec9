#!/usr/bin/env bash
# Runs Prometheus in the foreground (supervisord's program "prometheus", started by
# `make up` only with MONITORING=1; the container's entrypoint too). Renders
# prometheus.yml.tmpl into PROMETHEUS_DIR, checks it with promtool, then execs.
# Every setting comes from the environment (defaults: bin/prutor; README.md, Config).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)

: "${PROMETHEUS_BIND:=127.0.0.1}" "${PROMETHEUS_PORT:=9090}"
: "${PROMETHEUS_DIR:=${PRUTOR_VAR:-$HERE/../var}/monitoring}"
: "${PROMETHEUS_RULES:=$HERE/rules/prutor.yml}"
: "${PROMETHEUS_SCRAPE_INTERVAL:=15s}" "${PROMETHEUS_RETENTION:=15d}"
: "${PROMETHEUS_ENGINE_TARGET:=${ENGINE_HOST:-127.0.0.1}:${ENGINE_PORT:-8081}}"
: "${PROMETHEUS_WEBAPP_TARGET:=${WEBAPP_HOST:-127.0.0.1}:${WEBAPP_HEALTH_PORT:-3001}}"
stats_host=${HAPROXY_STATS_BIND:-127.0.0.1}; [ "$stats_host" = 0.0.0.0 ] && stats_host=127.0.0.1
: "${PROMETHEUS_HAPROXY_TARGET:=$stats_host:${HAPROXY_STATS_PORT:-8404}}"
export PROMETHEUS_RULES PROMETHEUS_SCRAPE_INTERVAL PROMETHEUS_ENGINE_TARGET PROMETHEUS_WEBAPP_TARGET PROMETHEUS_HAPROXY_TARGET

command -v prometheus >/dev/null || { echo "monitoring/run.sh: prometheus is not installed (monitoring/install.sh)" >&2; exit 1; }
mkdir -p "$PROMETHEUS_DIR/data"
vars='${PROMETHEUS_RULES} ${PROMETHEUS_SCRAPE_INTERVAL} ${PROMETHEUS_ENGINE_TARGET} ${PROMETHEUS_WEBAPP_TARGET} ${PROMETHEUS_HAPROXY_TARGET}'
envsubst "$vars" <"$HERE/prometheus.yml.tmpl" >"$PROMETHEUS_DIR/prometheus.yml.new"
promtool check config "$PROMETHEUS_DIR/prometheus.yml.new" >/dev/null
mv -f "$PROMETHEUS_DIR/prometheus.yml.new" "$PROMETHEUS_DIR/prometheus.yml"

echo "monitoring: Prometheus on $PROMETHEUS_BIND:$PROMETHEUS_PORT scraping engine $PROMETHEUS_ENGINE_TARGET," \
  "webapp $PROMETHEUS_WEBAPP_TARGET, haproxy $PROMETHEUS_HAPROXY_TARGET every $PROMETHEUS_SCRAPE_INTERVAL"
exec prometheus \
  --config.file="$PROMETHEUS_DIR/prometheus.yml" \
  --storage.tsdb.path="$PROMETHEUS_DIR/data" \
  --storage.tsdb.retention.time="$PROMETHEUS_RETENTION" \
  --web.listen-address="$PROMETHEUS_BIND:$PROMETHEUS_PORT"
