#!/usr/bin/env bash
# Idempotent install of the webapp: Node packages from the lockfile and the
# fingerprinted browser assets. With --with-browser (or WEBAPP_TEST_BROWSER=1)
# also Debian's chromium for the end-to-end test; with --with-test-tools (or
# WEBAPP_TEST_TOOLS=1) Kattis' problemtools, which checks the packages we export
# (about 5 s). Used by `make up`, test.sh and the Dockerfile.
set -euo pipefail
cd "$(dirname "$0")"

need_node() {
  if ! command -v node >/dev/null 2>&1 || ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
    echo "webapp/install.sh: Node.js >= 20 is required (Debian: apt-get install nodejs from a Node 20 source)" >&2
    exit 1
  fi
}
need_node

want_browser=${WEBAPP_TEST_BROWSER:-0}
for a in "$@"; do [ "$a" = "--with-browser" ] && want_browser=1; done
if [ "$want_browser" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  echo "webapp/install.sh: installing Debian chromium for the browser test"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi

# Kattis' problemtools (PyPI) in a venv of its own under var/, pinned: the export test's
# independent judge of the packages we write (test/api/kattis-export.test.js).
want_tools=${WEBAPP_TEST_TOOLS:-0}
for a in "$@"; do [ "$a" = "--with-test-tools" ] && want_tools=1; done
PROBLEMTOOLS_VERSION=1.20260907
tools_venv=${PRUTOR_VAR:-$(cd .. && pwd)/var}/problemtools
if [ "$want_tools" = 1 ] && ! "$tools_venv/bin/pip" show problemtools 2>/dev/null | grep -qx "Version: $PROBLEMTOOLS_VERSION"; then
  echo "webapp/install.sh: installing problemtools $PROBLEMTOOLS_VERSION for the Kattis export test"
  python3 -m venv "$tools_venv"
  "$tools_venv/bin/pip" install --quiet --disable-pip-version-check "problemtools==$PROBLEMTOOLS_VERSION"
fi
# ... and its example problems (hello, different, guess, oddecho), which ship in its source
# distribution only: the import test grades their submissions as their folders say
# (about 40 s: pip prepares the sdist's metadata).
if [ "$want_tools" = 1 ] && [ ! -f "$tools_venv/examples/.version-$PROBLEMTOOLS_VERSION" ]; then
  sdist=$(mktemp -d)
  "$tools_venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: -d "$sdist" "problemtools==$PROBLEMTOOLS_VERSION"
  rm -rf "$tools_venv/examples"
  mkdir -p "$tools_venv/examples"
  tar xzf "$sdist"/problemtools-*.tar.gz -C "$tools_venv/examples" --strip-components=2 "problemtools-$PROBLEMTOOLS_VERSION/examples"
  touch "$tools_venv/examples/.version-$PROBLEMTOOLS_VERSION"
  rm -rf "$sdist"
fi

stamp=node_modules/.install-stamp
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > "$stamp"
fi

# bcrypt ships a prebuilt binary; check that it loads here
node -e "require('bcrypt')" || { echo "webapp/install.sh: bcrypt does not load" >&2; exit 1; }

# The similarity detector (Dolos) has its own packages, a native build the rest of the
# webapp does not need; an image built without the folder runs without similarity
# reports (a job then fails with "the detector failed").
if [ -f similarity/install.sh ]; then
  ./similarity/install.sh
fi

node build/assets.js
