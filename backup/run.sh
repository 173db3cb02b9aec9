#!/usr/bin/env bash
# What supervisord runs (as root: mariabackup reads the data directory): ships the
# binary log as it is written, takes a full backup every BACKUP_FULL_INTERVAL_S, keeps
# BACKUP_KEEP_FULLS, and writes the status the admin page shows. See README.md.
set -euo pipefail
exec bash "$(cd "$(dirname "$0")" && pwd)/backup.sh" daemon
