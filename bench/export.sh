#!/usr/bin/env bash
# Export benchmark (issue 3), side by side in one run on generated tables:
#   downloader export --format SIMPLE_CSV --fields F  (our zip, parallel deflate)
#   DuckDB COPY (SELECT F FROM the same Parquet files WHERE ...) TO 'x.tsv.gz'
#     (DELIMITER '\t', QUOTE '', COMPRESSION gzip), 2 threads
#   the compression floor: klauspost flate level 5 on 2 goroutines over the
#     same uncompressed bytes our export wrote (bench/floor)
# for a ~5%-selective (country=NL) and a ~85%-selective (hasCoordinate=true)
# predicate. Wall time, CPU time and peak RSS come from /usr/bin/time -v;
# ours and DuckDB run RUNS times each (default 3), the fastest run is
# reported, with the highest peak RSS of the runs.
#
# Usage: bench/export.sh [RECORDS...]   (default: 1000000 10000000)
# Env: BENCH_DIR (default /tmp/downloader-bench) keeps generated tables
# between runs; needs python3 with duckdb (scripts/ci/export-readers.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup "1000000 10000000" "$@"
fields=gbifID,datasetKey,occurrenceID,scientificName,countryCode,locality,decimalLatitude,decimalLongitude,eventDate,year,basisOfRecord,recordedBy
build_tools floor gen
need_python duckdb

duck_sql() { # predicate-sql glob out
	cat <<SQL
SET threads = 2;
COPY (SELECT ${fields} FROM read_parquet('$2') WHERE $1)
TO '$3' (FORMAT csv, DELIMITER '\t', QUOTE '', ESCAPE '', HEADER, COMPRESSION gzip);
SQL
}

echo "| records | predicate | matched | ours wall s | DuckDB wall s | floor wall s | DuckDB/ours | ours/floor | ours CPU s | DuckDB CPU s | ours RSS MB | DuckDB RSS MB | zip MB | gz MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	table="$work/t$n"
	if [[ ! -f "$table/.bench-done" ]]; then
		rm -rf "$table"
		"$work/bin/gen" -table "$table" -records "$n" >&2
		touch "$table/.bench-done"
	fi
	glob="$table/data/*/*/*.parquet"
	for sel in "country=NL|countryCode = 'NL'" "hasCoordinate=true|hasCoordinate"; do
		q=${sel%%|*}
		sql=${sel#*|}
		matched=$("$dl" count --table "$table" --query "$q")
		zip="$work/out.zip"
		gz="$work/duck.tsv.gz"
		rm -f "$zip" "$gz"
		read -r _ ow oc orss < <(best ours "$dl" export --table "$table" --query "$q" --format SIMPLE_CSV --fields "$fields" --progress never -o "$zip")
		duck_sql "$sql" "$glob" "$gz" >"$work/duck.sql"
		read -r _ dw dc drss < <(best duckdb python3 -c 'import duckdb,sys; duckdb.sql(open(sys.argv[1]).read())' "$work/duck.sql")
		duckrows=$(python3 -c 'import gzip,sys; print(sum(1 for _ in gzip.open(sys.argv[1], "rb")) - 1)' "$gz")
		[[ "$duckrows" == "$matched" ]] || echo "warning: DuckDB wrote $duckrows rows, count says $matched" >&2
		unzip -p "$zip" occurrence.csv >"$work/raw.tsv"
		ourrows=$(($(wc -l <"$work/raw.tsv") - 1))
		[[ "$ourrows" == "$matched" ]] || { echo "export wrote $ourrows rows, count says $matched" >&2; exit 1; }
		fw=$("$work/bin/floor" -level 5 -workers 2 "$work/raw.tsv" | awk '{for (i = 1; i <= NF; i++) if ($i == "in") print substr($(i+1), 1, length($(i+1)) - 1)}')
		rm -f "$work/raw.tsv"
		zmb=$(awk -v b="$(stat -c %s "$zip")" 'BEGIN { printf "%.1f", b / 1048576 }')
		gmb=$(awk -v b="$(stat -c %s "$gz")" 'BEGIN { printf "%.1f", b / 1048576 }')
		awk -v n="$n" -v q="$q" -v m="$matched" -v ow="$ow" -v dw="$dw" -v fw="$fw" -v oc="$oc" -v dc="$dc" \
			-v orss="$orss" -v drss="$drss" -v z="$zmb" -v g="$gmb" 'BEGIN {
			printf "| %d | %s | %d | %.2f | %.2f | %.2f | %.2fx | %.2fx | %.2f | %.2f | %d | %d | %s | %s |\n",
				n, q, m, ow, dw, fw, dw / ow, ow / fw, oc, dc, orss, drss, z, g }'
	done
done
