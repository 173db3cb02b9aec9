#!/bin/sh
# Builds the engine's Java runtime under /usr (the only tree the sandbox shows), from Debian's
# openjdk-17-jdk-headless (engine/install.sh installs it):
#   - a jlink image of the Java SE modules and javac, with its own class data sharing (CDS)
#     archive: Debian's JDK reads jvm.cfg and conf/ through symlinks into /etc, which the
#     sandbox does not show, and a jlink image holds them as plain files;
#   - prutor-javac.jar, the compile step (PrutorJavac.java: javac in process, then one jar);
#   - javac.jsa, a dynamic CDS archive of javac's own classes, made by compiling a sample
#     once: a compile then starts in about 0.2 s instead of 0.5 s (engine/README.md, Java).
# Idempotent: rebuilt only when the JDK or these sources change. Run as root.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
# fixed: nosql/environments.json and the sandbox's managed profile (sandbox/src/syscalls.h) name it
OUT=/usr/local/lib/prutor-java
JDK=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$JDK/bin/jlink" ] || JDK=$(dirname "$(dirname "$(readlink -f /usr/bin/javac)")")
sum=$( (echo "$OUT"; cat "$JDK/release" "$HERE/PrutorJavac.java" "$HERE/Sample.java" "$HERE/install.sh") | sha256sum | cut -c1-64)
[ "$(cat "$OUT/.src.sha256" 2>/dev/null || true)" = "$sum" ] && exit 0
tmp=$(mktemp -d "$(dirname "$OUT")/.prutor-java.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the standard modules (java.se) and the compiler; no debug symbols, modules uncompressed
# (a compressed image loads classes more slowly)
"$JDK/bin/jlink" --add-modules java.se,jdk.compiler,jdk.zipfs,jdk.unsupported --strip-debug --no-man-pages \
  --no-header-files --generate-cds-archive --output "$tmp/jdk"
mkdir "$tmp/build" "$tmp/sample"
"$tmp/jdk/bin/java" -XX:+UseSerialGC -m jdk.compiler/com.sun.tools.javac.Main -d "$tmp/build" "$HERE/PrutorJavac.java"
"$JDK/bin/jar" cf "$tmp/prutor-javac.jar" -C "$tmp/build" .
cp "$HERE/Sample.java" "$tmp/sample/"
# the archive records the jar's path: it is made where it will be used ($OUT), so the image
# moves into place first
rm -rf "$OUT.old"
[ ! -e "$OUT" ] || mv "$OUT" "$OUT.old"
mkdir -p "$OUT"
mv "$tmp/jdk" "$tmp/prutor-javac.jar" "$OUT/"
(cd "$tmp/sample" && "$OUT/jdk/bin/java" -Djava.io.tmpdir="$tmp" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ArchiveClassesAtExit="$OUT/javac.jsa" \
  -Xlog:cds=off -Xlog:cds+dynamic=off -cp "$OUT/prutor-javac.jar" PrutorJavac prog Sample.java)
chmod -R a+rX "$OUT"
rm -rf "$OUT.old"
echo "$sum" > "$OUT/.src.sha256"
echo "engine/java/install.sh: Java runtime built in $OUT"
