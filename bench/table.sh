#!/usr/bin/env bash
# Occurrence table benchmark (issue 2): the embedded store against DuckDB
# (@duckdb/node-api, 2 threads) reading the same records from one Parquet
# file, side by side in one run, on a generated table of N records.
#
#   bash bench/table.sh 1000000        # or 10000000
#
# For each predicate it prints: matches (both engines must agree, the script
# fails otherwise), our count time on an open table (`count --repeat`, the
# way the service counts and the way DuckDB is timed: a query inside a warm
# process), our count time as a whole new process (start-up, manifest and
# Parquet footers included), DuckDB's time, the ratios (best of RUNS runs
# each), then our scan that materializes every column of the matches (a whole
# process, best of RUNS), with its rate in table records per second and the
# highest peak RSS of those runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-1000000}"
runs="${RUNS:-3}"
work="${WORK:-$root/.work/bench}"
mkdir -p "$work"
cd "$root"
go build -o "$work/downloader" ./cmd/downloader
go build -o "$work/gen" ./bench/gen
table="$work/table-$n"
if [ ! -f "$table/manifest.json" ]; then
	rm -rf "$table"
	"$work/gen" -table "$table" -records "$n"
fi
(cd bench/duckdb && [ -d node_modules/@duckdb/node-api ] || npm install --no-audit --no-fund --silent)
one="$work/table-$n.parquet"
[ -f "$one" ] || node bench/duckdb/query.mjs prepare "$table" "$one"

# name | portal query | the same predicate in SQL
queries=(
	"country NL|country=NL|countryCode = 'NL'"
	"country SE (~5%)|country=SE|countryCode = 'SE'"
	"year 2000-2010|year=2000,2010|year BETWEEN 2000 AND 2010"
	"taxon 3 (any rank)|taxonKey=3|3 IN (taxonKey, acceptedTaxonKey, kingdomKey, phylumKey, classKey, orderKey, familyKey, genusKey, speciesKey)"
	"specimens with coordinates|basisOfRecord=PRESERVED_SPECIMEN&hasCoordinate=true|basisOfRecord = 'PRESERVED_SPECIMEN' AND hasCoordinate"
	"polygon 0..15E 45..60N|geometry=POLYGON((0 45,15 45,15 60,0 60,0 45))|hasCoordinate AND decimalLongitude BETWEEN 0 AND 15 AND decimalLatitude BETWEEN 45 AND 60"
	"DK+SE since 2000 with coordinates|country=DK&country=SE&year=2000,*&hasCoordinate=true|countryCode IN ('DK','SE') AND year >= 2000 AND hasCoordinate"
)
json="["
for q in "${queries[@]}"; do
	IFS='|' read -r name qs sql <<<"$q"
	json+="{\"name\":\"$name\",\"sql\":\"${sql//\"/\\\"}\"},"
done
json="${json%,}]"
printf '%s' "$json" >"$work/queries.json"
duck="$(node bench/duckdb/query.mjs count "$one" "$work/queries.json" "$runs")"

now() { date +%s%N; }
echo "| predicate | matches | ours warm ms | ours process ms | DuckDB ms | warm/DuckDB | process/DuckDB | ours materialize-all ms | M records/s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for q in "${queries[@]}"; do
	IFS='|' read -r name qs sql <<<"$q"
	best=""
	for _ in $(seq "$runs"); do
		t0=$(now)
		ours=$("$work/downloader" count --table "$table" --query "$qs")
		ms=$(( ($(now) - t0) / 1000000 ))
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	done
	# Warm: the first of RUNS+1 counts in one process opens the files.
	warm=$("$work/downloader" count --table "$table" --query "$qs" --repeat "$((runs + 1))" -v 2>&1 >/dev/null |
		sed -n 's/.* in \([0-9.]*\)s .*/\1/p' | tail -n "$runs" | sort -n | head -1)
	wms=$(echo "$warm * 1000" | bc -l)
	line=$(grep -F "\"name\":\"$name\"" <<<"$duck")
	dcount=$(sed 's/.*"count":\([0-9]*\).*/\1/' <<<"$line")
	dms=$(sed 's/.*"ms":\([0-9.]*\).*/\1/' <<<"$line")
	if [ "$ours" != "$dcount" ]; then
		echo "MISMATCH on $name: ours $ours, DuckDB $dcount" >&2
		exit 1
	fi
	mms="" rss=0
	for _ in $(seq "$runs"); do
		t0=$(now)
		r=$( { /usr/bin/time -f '%M' "$work/downloader" count --table "$table" --query "$qs" --materialize >/dev/null; } 2>&1 | tail -1)
		ms=$(( ($(now) - t0) / 1000000 ))
		if [ -z "$mms" ] || [ "$ms" -lt "$mms" ]; then mms=$ms; fi
		if [ "$r" -gt "$rss" ]; then rss=$r; fi
	done
	printf '| %s | %s | %.0f | %s | %.0f | %.2f | %.2f | %s | %.2f | %d |\n' "$name" "$ours" "$wms" "$best" "$dms" \
		"$(echo "$wms / $dms" | bc -l)" "$(echo "$best / $dms" | bc -l)" "$mms" "$(echo "$n / $mms / 1000" | bc -l)" "$((rss / 1024))"
done
