#!/usr/bin/env bash
# What supervisord runs (started as root, which backup.sh needs only to make its MariaDB
# account and private option file before it drops to the data directory's owner, mysql):
# ships the binary log as it is written, takes a full backup every
# BACKUP_FULL_INTERVAL_S (deferred while an exam is open), keeps BACKUP_KEEP_FULLS, and
# writes the status the admin page shows. See README.md.
set -euo pipefail
exec bash "$(cd "$(dirname "$0")" && pwd)/backup.sh" daemon
