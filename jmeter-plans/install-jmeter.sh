#!/usr/bin/env bash
# Assembles Apache JMeter 5.6.3 from Maven Central with jmeter-maven-plugin 3.7.0
# (pom.xml here) once, and keeps it in ~/.cache/prutor/jmeter-5.6.3 (JMETER_CACHE).
# Prints the JMeter home. Idempotent: a second run only prints the path.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

jar="$JMETER_CACHE/bin/ApacheJMeter-$JMETER_VERSION.jar"
if [ -f "$jar" ] && [ -d "$JMETER_CACHE/lib/ext" ]; then
  echo "$JMETER_CACHE"; exit 0
fi
command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
command -v java >/dev/null || die "java not found"
echo "assembling JMeter $JMETER_VERSION with Maven (first time ~1-3 min)..." >&2
( cd "$PLANS_DIR" && mvn -B -q verify ) >&2 || die "mvn verify failed"
home=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["configurations"][0]["jmeterDirectoryPath"])' "$PLANS_DIR/target/config.json")
[ -f "$home/bin/ApacheJMeter-$JMETER_VERSION.jar" ] || die "no JMeter jar under $home"
mkdir -p "$(dirname "$JMETER_CACHE")"
rm -rf "$JMETER_CACHE.tmp" && cp -r "$home" "$JMETER_CACHE.tmp" && rm -rf "$JMETER_CACHE" && mv "$JMETER_CACHE.tmp" "$JMETER_CACHE"
echo "$JMETER_CACHE"
