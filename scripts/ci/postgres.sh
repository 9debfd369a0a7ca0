#!/usr/bin/env bash
# Installs (Debian package) and starts a local PostgreSQL for the job service
# tests, with a role that may create the per-test databases. Idempotent.
# Prints the export line the tests read:
#   export DOWNLOADER_TEST_POSTGRES=postgres://downloader:downloader@127.0.0.1:5432/downloader
set -euo pipefail
# Only the final export line goes to stdout (callers eval it).
exec 3>&1 1>&2
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
ver=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -q "^$ver main$"; then
  pg_createcluster "$ver" main >/dev/null
fi
pg_ctlcluster "$ver" main start 2>/dev/null || true
for _ in $(seq 1 30); do
  pg_isready -q -h 127.0.0.1 -p 5432 && break
  sleep 1
done
su postgres -c "psql -q -v ON_ERROR_STOP=1" <<'SQL'
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'downloader') THEN
    CREATE ROLE downloader LOGIN PASSWORD 'downloader' CREATEDB;
  END IF;
END $$;
SQL
if ! su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname='downloader'\"" | grep -q 1; then
  su postgres -c "createdb -O downloader downloader"
fi
echo "export DOWNLOADER_TEST_POSTGRES='postgres://downloader:downloader@127.0.0.1:5432/downloader'" >&3
