#!/usr/bin/env bash
# The independent LTI 1.3 platform of test/api/lti-platform.test.js: PyPI's
# lti1p3platform (a platform-side LTI 1.3 Advantage library nobody here wrote) in a
# venv under $PRUTOR_CACHE, pinned. Idempotent; about 15 s the first time.
set -euo pipefail
: "${PRUTOR_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/prutor}"
VENV=$PRUTOR_CACHE/lti-platform-venv
PKGS=("lti1p3platform==0.1.8" "PyJWT==2.10.1" "jwcrypto==1.5.6" "requests==2.32.3" "typing_extensions==4.12.2")
stamp=$VENV/.stamp
want=$(printf '%s\n' "${PKGS[@]}" | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
mkdir -p "$PRUTOR_CACHE"
if ! python3 -m venv "$VENV" 2>/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check "${PKGS[@]}"
echo "$want" > "$stamp"
