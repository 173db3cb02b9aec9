#!/usr/bin/env bash
# Idempotent install of the similarity detector (Dolos) from its lockfile. Dolos'
# tree-sitter parsers are built from source here (node-gyp, ~2 minutes the first
# time; needs make, g++ and python3), so they live apart from the webapp's packages.
set -euo pipefail
cd "$(dirname "$0")"

# node-gyp's tools (a clean Debian may lack g++ or make)
missing=()
for p in g++ make python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -print -quit 2>/dev/null)" ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# node-gyp builds against the installed Node's headers, never a download (no nodejs.org here)
# (Debian's nodejs keeps them under /usr, the official binaries and images under /usr/local)
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$node_prefix/include/node/node_version.h" ]; then
  export npm_config_nodedir=$node_prefix
fi
stamp=node_modules/.install-stamp
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
# the built parsers are kept per lockfile and Node version (as FerretDB is): a second
# checkout, or CI on the same machine, unpacks them instead of compiling them again
cache_dir=${PRUTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/prutor}
cache=$cache_dir/similarity-${lock_sum:0:16}-$(node -p process.version).tgz
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  if [ -f "$cache" ] && rm -rf node_modules && tar -xzf "$cache"; then
    echo "similarity/install.sh: parsers from $cache"
  else
    npm ci --no-audit --no-fund --loglevel=error
    mkdir -p "$cache_dir" && tar -czf "$cache.tmp" node_modules && mv -f "$cache.tmp" "$cache"
  fi
  echo "$lock_sum" > "$stamp"
fi
# The C parser must load (a failed native build shows here, not at the first job).
echo '{"files":[{"id":1,"code":"int main(void){return 0;}"},{"id":2,"code":"int main(void){return 1;}"}]}' |
  node detect.mjs >/dev/null || { echo "similarity/install.sh: the detector does not run" >&2; exit 1; }
