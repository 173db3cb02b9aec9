#!/bin/sh
# Installs what the engine needs: Apache prefork + mod_php 8.2 with PDO MySQL, memcached,
# mbstring (Output.php; without it every answer with program output is a 500)
# and APCu (plus php-curl and PHPUnit for engine/test.sh, unless
# ENGINE_INSTALL_TEST_TOOLS=0 as in the image), then the sandbox (sandbox/install.sh).
# Idempotent; quick when everything is present. Run as root.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "engine/install.sh: must run as root" >&2; exit 1; }
need=""
packages="apache2 libapache2-mod-php php-mysql php-memcached php-apcu php-mbstring"
[ "${ENGINE_INSTALL_TEST_TOOLS:-1}" = 0 ] || packages="$packages php-curl phpunit"
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "engine/install.sh: installing$need"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y --no-install-recommends $need
fi
"$HERE/../sandbox/install.sh"
