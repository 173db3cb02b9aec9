#!/bin/sh
# Precompiles the C++ system headers students start with (<iostream>, <bits/stdc++.h>,
# <vector>, <algorithm>) with the cpp environment's own compile_args, into
# /usr/local/lib/prutor-pch (Runner::PCH_DIR), which the engine's g++ line puts first on the
# include path (Runner::compileCommand). The sandbox sees /usr, so a compile there finds them.
# g++ uses such a header only where it cannot change the program: as the source's first
# include, with the same compiler, flags and no macro defined before it that the header uses
# (a student's `#define _GLIBCXX_DEBUG` or `#pragma pack` before the include: g++ reads the
# real header instead). Each is built from the header itself, so it holds exactly that header.
# Idempotent: rebuilt only when g++'s version or the flags changed. Run as root.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=/usr/local/lib/prutor-pch  # Runner::PCH_DIR
ENVS=${PRUTOR_ENVIRONMENTS:-$HERE/../nosql/environments.json}
[ -f "$ENVS" ] || ENVS=$HERE/config/environments.json
# (the image's install layer comes before its environments: its own RUN builds them later)
[ -f "$ENVS" ] || { echo "engine/pch.sh: no environments.json yet: nothing precompiled"; exit 0; }
command -v g++ >/dev/null || { echo "engine/pch.sh: no g++" >&2; exit 1; }
# shellcheck disable=SC2016
args=$(php -r '$e = array_values(array_filter(json_decode(file_get_contents($argv[1]), true), fn ($e) => $e["slug"] === "cpp"));
    echo $e ? implode(" ", $e[0]["compile_args"] ?? []) : "";' "$ENVS")
[ -n "$args" ] || { echo "engine/pch.sh: no cpp environment in $ENVS" >&2; exit 0; }
stamp="$(g++ -dumpfullversion) $(g++ -dumpmachine) $args"
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$stamp" ]; then
  exit 0
fi
t0=$(date +%s)
tmp=$(mktemp -d "${OUT%/*}/.prutor-pch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for h in iostream bits/stdc++.h vector algorithm; do
  # the header's own file, as g++ finds it with these flags
  # shellcheck disable=SC2086
  src=$(echo "#include <$h>" | g++ $args -x c++ -fsyntax-only -H - 2>&1 | sed -n '1s/^\. //p')
  [ -f "$src" ] || { echo "engine/pch.sh: cannot find <$h>" >&2; exit 1; }
  mkdir -p "$tmp/$(dirname "$h")"
  # shellcheck disable=SC2086
  g++ $args -x c++-header "$src" -o "$tmp/$h.gch" 2>/dev/null
done
echo "$stamp" > "$tmp/stamp"
chmod -R a+rX "$tmp"
rm -rf "$OUT.old"
[ ! -d "$OUT" ] || mv "$OUT" "$OUT.old"
mv "$tmp" "$OUT"
rm -rf "$OUT.old"
trap - EXIT
echo "engine/pch.sh: precompiled headers for g++ $args in $OUT ($(du -sm "$OUT" | cut -f1) MB, $(($(date +%s) - t0)) s)"
