#!/usr/bin/env bash
# memcached/ tests: the webapp (Node) and the engine (PHP) spread keys over several
# memcached nodes the same way. Two real memcached processes on free loopback ports;
# Node writes keys through its ring and PHP must read every one from the node that
# holds it, and the other way round; both nodes must hold a fair share.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
N=${RING_KEYS:-400}
tmp=$(mktemp -d)
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
user_opt=(); [ "$(id -u)" -eq 0 ] && user_opt=(-u "${MEMCACHED_USER:-memcache}")
nodes=()
for i in 1 2; do
  port=$(free_port)
  memcached "${user_opt[@]}" -l 127.0.0.1 -p "$port" -U 0 -m 16 & pids+=($!)
  nodes+=("127.0.0.1:$port")
done
for n in "${nodes[@]}"; do
  for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/${n%:*}/${n#*:}") 2>/dev/null && break; sleep 0.1; done
done
export MEMCACHED_SERVERS="${nodes[0]},${nodes[1]}"
echo "nodes: $MEMCACHED_SERVERS, $N keys each way"

fails=0
check() { # check WRITER READER FILE: every key read back with the writer's value, from one node
  local writer=$1 reader=$2 file=$3 missing share1 share2
  missing=$(awk -v w="$writer" '$2 !~ "^"w":" || $3 == "-"' "$file" | wc -l)
  share1=$(awk -v n="${nodes[0]}" '$3 == n' "$file" | wc -l)
  share2=$(awk -v n="${nodes[1]}" '$3 == n' "$file" | wc -l)
  if [ "$missing" = 0 ]; then echo "ok   $writer wrote $N keys, $reader read all $N through its ring (node 1: $share1, node 2: $share2)"
  else echo "FAIL $reader missed $missing of the $N keys $writer wrote:"; awk -v w="$writer" '$2 !~ "^"w":" || $3 == "-"' "$file" | head -5; fails=$((fails + 1)); fi
  # both nodes in use, neither with under a quarter of the keys
  if [ $((share1 * 4)) -ge "$N" ] && [ $((share2 * 4)) -ge "$N" ]; then echo "ok   both nodes hold a share ($share1 / $share2)"
  else echo "FAIL keys not spread over both nodes ($share1 / $share2)"; fails=$((fails + 1)); fi
}

node "$HERE/tests/ring.js" write js: "$N"
php "$HERE/tests/ring.php" read js: "$N" >"$tmp/php-reads"
check js php "$tmp/php-reads"
php "$HERE/tests/ring.php" write php: "$N"
node "$HERE/tests/ring.js" read php: "$N" >"$tmp/js-reads"
check php js "$tmp/js-reads"
[ "$fails" = 0 ] && echo "memcached: all checks passed" || { echo "memcached: $fails checks failed"; exit 1; }
