#!/usr/bin/env bash
# Load benchmark of the download API on loopback: a generated table
# (RECORDS, default 1M), `downloader serve --role all` on SQLite (or
# $DB, e.g. a postgres:// URL), and bench/apiload sending status GETs and
# counts, first with nothing else running, then while full-table DWCA
# downloads run back to back in the same server. Prints one line per run.
#
#   bash bench/api.sh            # RECORDS=1000000 DURATION=10s CLIENTS=16
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
RECORDS=${RECORDS:-1000000}
DURATION=${DURATION:-10s}
CLIENTS=${CLIENTS:-16}
work=$(mktemp -d /tmp/apibench.XXXXXX)
db=${DB:-sqlite:$work/jobs.db}
cleanup() {
	[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	[ -n "${loop:-}" ] && kill "$loop" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/downloader" ./cmd/downloader
go build -o "$work/apiload" ./bench/apiload
echo "generating $RECORDS records" >&2
go run ./bench/gen -table "$work/table" -records "$RECORDS" >&2
export DOWNLOADER_PASSWORD=bench-secret APILOAD_PASSWORD=bench-secret
"$work/downloader" migrate --db "$db" >&2
"$work/downloader" user add bench --db "$db" >&2
"$work/downloader" serve --role all --listen 127.0.0.1:0 --db "$db" --table "$work/table" \
	--storage "$work/archives" --max-running 1000 >"$work/serve.out" 2>"$work/serve.log" &
pid=$!
for _ in $(seq 1 100); do
	grep -q " on http" "$work/serve.out" 2>/dev/null && break
	sleep 0.2
done
base=$(sed -n 's/.* on \(http[^ ]*\).*/\1/p' "$work/serve.out" | head -1)
[ -n "$base" ] || { cat "$work/serve.log" >&2; exit 1; }

submit() { # $1: distinguishing value
	curl -fsS -u bench:bench-secret -H 'Content-Type: application/json' "$base/v1/occurrence/download/request" \
		-d "{\"format\":\"DWCA\",\"predicate\":{\"type\":\"not\",\"predicate\":{\"type\":\"equals\",\"key\":\"CATALOG_NUMBER\",\"value\":\"bench-$1\"}}}"
}
status() { curl -fsS "$base/v1/occurrence/download/$1" | sed -n 's/.*"status":"\([A-Z_]*\)".*/\1/p'; }

key=$(submit 0)
while [ "$(status "$key")" != SUCCEEDED ]; do sleep 0.5; done
echo "first full export done: $(curl -fsS "$base/v1/occurrence/download/$key" | sed -n 's/.*"size":\([0-9]*\).*"totalRecords":\([0-9]*\).*/\2 records, \1 bytes/p')" >&2

count_paths=()
for y in $(seq 1950 5 2020); do count_paths+=(-path "/v1/occurrence/search/count?year=$y,2020"); done
load() { # label, args...
	local label=$1
	shift
	"$work/apiload" -url "$base" -c "$CLIENTS" -duration "$DURATION" -label "$label" "$@"
}
load "status idle" -path "/v1/occurrence/download/$key"
load "count idle" "${count_paths[@]}"

# Downloads back to back while measuring.
: >"$work/exports.log"
(
	i=1
	while true; do
		k=$(submit "$i") || exit 0
		echo "$k" >"$work/current"
		while true; do
			s=$(status "$k") || exit 0
			case "$s" in SUCCEEDED | FAILED | CANCELLED | KILLED) break ;; esac
			sleep 0.2
		done
		echo "$k $s" >>"$work/exports.log"
		i=$((i + 1))
	done
) &
loop=$!
sleep 1
load "status with export" -path "/v1/occurrence/download/$key"
load "count with export" "${count_paths[@]}"
kill "$loop" 2>/dev/null || true
echo "downloads finished during the loaded runs: $(wc -l <"$work/exports.log")" >&2
cur=$(cat "$work/current" 2>/dev/null || true)
[ -n "$cur" ] && echo "download running at the end: $(curl -fsS "$base/v1/occurrence/download/$cur" |
	sed -n 's/.*"status":"\([A-Z_]*\)".*"progress":{\([^}]*\)}.*/\1 \2/p')" >&2
true
