#!/usr/bin/env bash
# Builds helm (for `helm lint` / `helm template` of deploy/helm/prutor in make test) from
# the Go module proxy, once: the binary is cached under $PRUTOR_CACHE/helm/<version>/.
# Prints the binary's path. About 3-4 minutes on 2 cores the first time, then instant.
set -euo pipefail
: "${PRUTOR_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/prutor}"
HELM_VERSION=${HELM_VERSION:-v3.16.4}
bin=$PRUTOR_CACHE/helm/$HELM_VERSION/helm
if ! [ -x "$bin" ]; then
  command -v go >/dev/null || { echo "deploy/install.sh: go is needed to build helm" >&2; exit 1; }
  echo "deploy/install.sh: building helm $HELM_VERSION from the Go module proxy (once)" >&2
  mkdir -p "$(dirname "$bin")"
  GOFLAGS=-mod=mod GOBIN=$(dirname "$bin") go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
fi
echo "$bin"
