#!/usr/bin/env bash
# Fault soak of the download service (bench/soak): a generated table of
# RECORDS records (default 200000), an api process and two worker processes
# of `downloader serve` on a fresh PostgreSQL database (scripts/ci/postgres.sh
# installs and starts one), DOWNLOADS downloads (default 100) while workers
# are killed with SIGKILL at random and restarted (at most KILLS, default
# 25); checks that every download SUCCEEDED exactly once with a verified
# archive and no partial file left, and prints a summary. Loopback only.
#
#   bash bench/soak.sh            # RECORDS=200000 DOWNLOADS=100 KILLS=25 TIMEOUT=20m
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
RECORDS=${RECORDS:-200000}
DOWNLOADS=${DOWNLOADS:-100}
KILLS=${KILLS:-25}
TIMEOUT=${TIMEOUT:-20m}
SEED=${SEED:-1}
if [ -z "${DOWNLOADER_TEST_POSTGRES:-}" ]; then
	eval "$(bash scripts/ci/postgres.sh)"
fi
work=$(mktemp -d /tmp/soak.XXXXXX)
dbname="soak_$$"
psql_base=$DOWNLOADER_TEST_POSTGRES
cleanup() {
	psql "$psql_base" -qc "DROP DATABASE IF EXISTS $dbname WITH (FORCE)" >/dev/null 2>&1 || true
	if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT
go build -o "$work/downloader" ./cmd/downloader
go build -o "$work/soak" ./bench/soak
echo "generating $RECORDS records" >&2
go run ./bench/gen -table "$work/table" -records "$RECORDS" -datasets 50 >&2
psql "$psql_base" -qc "CREATE DATABASE $dbname" >/dev/null
db="${psql_base%/*}/$dbname"
"$work/soak" -bin "$work/downloader" -table "$work/table" -db "$db" -work "$work" \
	-downloads "$DOWNLOADS" -kills "$KILLS" -timeout "$TIMEOUT" -seed "$SEED"
