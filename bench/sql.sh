#!/usr/bin/env bash
# SQL downloads (SQL_TSV_ZIP) against DuckDB, side by side in one run, on
# the generated table of wide records (bench/gen; the table and its
# one-file Parquet copy are shared with bench/export-wide.sh). Each query is
# one an SQL download user runs (rgbif's SQL vignette, GBIF's occurrence
# cubes): a species cube, counts by dataset and country, a degree grid of
# distinct species, a time series, a selection of rows, and a cube by
# year-month as GBIF's documentation writes it (PRINTF, which DuckDB spells
# alike). Ours is a whole
# `downloader export --sql` process writing the zip; DuckDB (2 threads)
# runs the same query over the one Parquet file and writes a gzipped TSV.
# Both must return the same number of rows, or the script fails. Runs
# alternate RUNS times (default 3); the fastest wall of each is reported,
# with its CPU and the highest peak RSS.
#
# Usage: bench/sql.sh [RECORDS...]   (default: 1000000)
# Env: BENCH_DIR (default /tmp/downloader-bench); needs python3 with duckdb
# (scripts/ci/export-readers.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup 1000000 "$@"
build_tools gen
need_python duckdb

names=(cube datasets grid series rows monthcube)
queries=(
	'SELECT speciesKey, countryCode, "year", COUNT(*) AS n FROM occurrence WHERE hasCoordinate AND speciesKey IS NOT NULL GROUP BY speciesKey, countryCode, "year"'
	'SELECT datasetKey, countryCode, COUNT(*) AS n FROM occurrence GROUP BY datasetKey, countryCode'
	'SELECT FLOOR(decimalLatitude) AS lat, FLOOR(decimalLongitude) AS lon, COUNT(DISTINCT speciesKey) AS species, COUNT(*) AS n FROM occurrence WHERE hasCoordinate GROUP BY FLOOR(decimalLatitude), FLOOR(decimalLongitude)'
	'SELECT "year", basisOfRecord, COUNT(DISTINCT speciesKey) AS species FROM occurrence GROUP BY basisOfRecord, "year"'
	'SELECT gbifID, scientificName, decimalLatitude, decimalLongitude, eventDate, recordedBy FROM occurrence WHERE "year" >= 2000 AND basisOfRecord = '"'"'HUMAN_OBSERVATION'"'"''
	'SELECT PRINTF('"'"'%04d-%02d'"'"', "year", "month") AS yearMonth, speciesKey, COUNT(*) AS n FROM occurrence WHERE "year" IS NOT NULL AND "month" IS NOT NULL AND speciesKey IS NOT NULL GROUP BY yearMonth, speciesKey'
)

echo "| records | query | result rows | ours wall s | DuckDB wall s | DuckDB/ours | ours CPU s | DuckDB CPU s | ours RSS MB | DuckDB RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	table="$work/wide$n"
	wide_table "$n"
	one="$table.one.parquet"
	for i in "${!queries[@]}"; do
		q=${queries[$i]} zip="$work/sql.zip" gz="$work/duck.tsv.gz"
		printf "SET threads = 2;\nCREATE VIEW occurrence AS SELECT * FROM read_parquet('%s');\nCOPY (%s) TO '%s' (FORMAT csv, DELIMITER '\\t', QUOTE '', ESCAPE '', HEADER, COMPRESSION gzip);\n" \
			"$one" "$q" "$gz" >"$work/duck.sql"
		ow="" dw="" orss=0 drss=0
		for _ in $(seq "$runs"); do
			rm -f "$zip" "$gz"
			keep o ours "$dl" export --table "$table" --sql "$q" --progress never -o "$zip"
			keep d duckdb python3 -c 'import duckdb,sys; duckdb.sql(open(sys.argv[1]).read())' "$work/duck.sql"
		done
		rows=$(($(unzip -p "$zip" | wc -l) - 1))
		duckrows=$(python3 -c 'import gzip,sys; print(sum(1 for _ in gzip.open(sys.argv[1], "rb")) - 1)' "$gz")
		[[ "$rows" == "$duckrows" ]] || { echo "bench/sql.sh: ${names[$i]}: ours $rows rows, DuckDB $duckrows" >&2; exit 1; }
		awk -v n="$n" -v q="${names[$i]}" -v m="$rows" -v ow="$ow" -v dw="$dw" -v oc="$oc" -v dc="$dc" -v orss="$orss" -v drss="$drss" 'BEGIN {
			printf "| %d | %s | %d | %.2f | %.2f | %.2fx | %.2f | %.2f | %d | %d |\n", n, q, m, ow, dw, dw / ow, oc, dc, orss, drss }'
	done
done
