#!/bin/sh
# Installs what the engine needs: Apache prefork + mod_php 8.2 with PDO MySQL, memcached,
# mbstring and APCu, the languages' compilers and interpreters (gcc, g++, python3 with
# pylint for CodeRunner's checks, OpenJDK 17, Node.js, PHP's CLI, Free Pascal), plus php-curl and PHPUnit for engine/test.sh unless
# ENGINE_INSTALL_TEST_TOOLS=0 (as in the image), the C++ precompiled headers (pch.sh), then
# the sandbox (sandbox/install.sh).
# Idempotent; quick when everything is present. Run as root.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "engine/install.sh: must run as root" >&2; exit 1; }
need=""
packages="apache2 libapache2-mod-php php-mysql php-memcached php-apcu php-mbstring gcc g++ python3 pylint openjdk-17-jdk-headless nodejs php-cli fp-compiler"
[ "${ENGINE_INSTALL_TEST_TOOLS:-1}" = 0 ] || packages="$packages php-curl phpunit"
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "engine/install.sh: installing$need"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # the JRE's postinst links its man pages there, and slim images have no such folder
  # (Debian bug 863199: openjdk fails to configure)
  mkdir -p /usr/share/man/man1
  # shellcheck disable=SC2086
  apt-get install -y --no-install-recommends $need
fi
# pylint's defaults for CodeRunner's style checks (Jobe's README writes them to /etc/pylintrc;
# the sandbox sees /usr only): no score line, no reports
if [ ! -s /usr/local/share/prutor/pylintrc ]; then
  mkdir -p /usr/local/share/prutor
  HOME=/tmp pylint --reports=no --score=n --generate-rcfile > /usr/local/share/prutor/pylintrc.tmp
  mv /usr/local/share/prutor/pylintrc.tmp /usr/local/share/prutor/pylintrc
fi
# C++: the system headers students start with, precompiled for the cpp environment's flags
# (engine/pch.sh; about 140 MB under /usr/local/lib/prutor-pch, 5-20 s, once per g++ or flags)
"$HERE/pch.sh"
# Java: a jlink image of the JDK with class data sharing archives, under /usr (engine/java/install.sh)
"$HERE/java/install.sh"
"$HERE/../sandbox/install.sh"
