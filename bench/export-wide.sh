#!/usr/bin/env bash
# Wide export benchmark (issue 13), side by side in one run on a generated
# table whose records carry the pass-through terms publishers fill (about
# 35 verbatim terms and 55 filled columns a record), for the 85%-selective
# predicate hasCoordinate=true:
#   SIMPLE_CSV of 43 interpreted and pass-through columns (--fields), and
#   the full DWCA (occurrence.txt of GBIF's 230 columns, verbatim.txt,
#   multimedia.txt, metadata);
# each against
#   DuckDB (2 threads) writing the same columns of the same records from
#     one Parquet file (the table's files copied into one, untimed) to a
#     gzipped TSV, and
#   the compression floor: klauspost flate level 5 on 2 goroutines over the
#     uncompressed text our export wrote (bench/floor), and
#   the copy floor: what a table storing every archive line pre-formatted
#     could at best cost (bench/copyfloor: the same lines decoded from
#     Snappy pages and written into the archive writer with SHA-256; no
#     column decoded, no value formatted).
# Runs alternate ours, DuckDB and the floor RUNS times (default 3) and the
# fastest of each is reported, with the highest peak RSS; ours/floor is the
# wall ratio, the last column the CPU ratio of those same runs.
#
# Usage: bench/export-wide.sh [RECORDS...]   (default: 1000000)
# Env: BENCH_DIR (default /tmp/downloader-bench) keeps generated tables;
# needs python3 with duckdb (scripts/ci/export-readers.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup 1000000 "$@"
fields=gbifID,datasetKey,occurrenceID,catalogNumber,institutionCode,collectionCode,basisOfRecord,occurrenceStatus,kingdom,phylum,class,order,family,genus,species,scientificName,taxonRank,taxonKey,countryCode,stateProvince,county,municipality,locality,continent,decimalLatitude,decimalLongitude,coordinateUncertaintyInMeters,eventDate,year,month,day,recordedBy,identifiedBy,habitat,samplingProtocol,occurrenceRemarks,sex,lifeStage,eventID,recordNumber,license,issue,lastInterpreted
query="hasCoordinate=true"
sql_where="hasCoordinate"
build_tools floor copyfloor gen
need_python duckdb

# quoted a,b,c: "a","b","c" (column names such as order and class are SQL words).
quoted() { sed 's/[^,]*/"&"/g' <<<"$1"; }

# dwca_columns TABLE: the columns a DWCA reads, as the export asks the scan
# for them (GBIF's 230, then verbatim and multimedia).
dwca_columns() {
	python3 - "$root/download/testdata/gbif-occurrence-columns.txt" <<'PY'
import sys
cols = [l.split(":", 1)[1].strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
print(",".join(cols + ["verbatim", "multimedia"]))
PY
}

duck_sql() { # columns parquet out
	cat <<SQL
SET threads = 2;
COPY (SELECT $(quoted "$1") FROM read_parquet('$2') WHERE $sql_where)
TO '$3' (FORMAT csv, DELIMITER '\t', QUOTE '', ESCAPE '', HEADER, COMPRESSION gzip);
SQL
}

echo "| records | format | columns | matched | ours wall s | DuckDB wall s | floor wall s | DuckDB/ours | ours/floor | ours CPU s | DuckDB CPU s | floor CPU s | ours RSS MB | DuckDB RSS MB | text MB | zip MB | gz MB | ours/floor CPU |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
split=() copy=()
for n in "${sizes[@]}"; do
	table="$work/wide$n"
	wide_table "$n"
	one="$table.one.parquet"
	matched=$("$dl" count --table "$table" --query "$query")
	for format in SIMPLE_CSV DWCA; do
		zip="$work/out.zip" gz="$work/duck.tsv.gz" raw="$work/raw.txt"
		if [[ $format == SIMPLE_CSV ]]; then
			cols=$fields
			ours=("$dl" export --table "$table" --query "$query" --format SIMPLE_CSV --fields "$fields" --progress never -o "$zip")
		else
			cols=$(dwca_columns)
			ours=("$dl" export --table "$table" --query "$query" --format DWCA --progress never -o "$zip" --tmp "$work")
		fi
		duck_sql "$cols" "$one" "$gz" >"$work/duck.sql"
		ow="" dw="" fw="" orss=0 drss=0 kw="" kc="" stored=0
		unmatched=$(awk -v n="$n" -v m="$matched" 'BEGIN { printf "%.4f", 1 - m / n }')
		for i in $(seq "$runs"); do
			rm -f "$zip" "$gz"
			keep o ours "${ours[@]}"
			keep d duckdb python3 -c 'import duckdb,sys; duckdb.sql(open(sys.argv[1]).read())' "$work/duck.sql"
			if [[ $format == SIMPLE_CSV ]]; then
				unzip -p "$zip" occurrence.csv >"$raw"
				rows=$(($(wc -l <"$raw") - 1))
			else
				unzip -p "$zip" occurrence.txt verbatim.txt multimedia.txt >"$raw"
				rows=$(($(unzip -p "$zip" occurrence.txt | wc -l) - 1))
			fi
			[[ "$rows" == "$matched" ]] || { echo "export wrote $rows rows, count says $matched" >&2; exit 1; }
			keep f floor "$work/bin/floor" -level 5 -workers 2 "$raw"
			read -r w c stored < <("$work/bin/copyfloor" -unmatched "$unmatched" "$raw" | awk '{ print $2, $5, $13 }')
			if faster "$w" "$kw"; then kw=$w kc=$c; fi
		done
		duckrows=$(python3 -c 'import gzip,sys; print(sum(1 for _ in gzip.open(sys.argv[1], "rb")) - 1)' "$gz")
		[[ "$duckrows" == "$matched" ]] || echo "warning: DuckDB wrote $duckrows rows, count says $matched" >&2
		mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
		tmb=$(mb "$(stat -c %s "$raw")") zmb=$(mb "$(stat -c %s "$zip")") gmb=$(mb "$(stat -c %s "$gz")")
		rm -f "$raw"
		copy+=("$(awk -v n="$n" -v f="$format" -v kw="$kw" -v kc="$kc" -v fc="$fc" -v oc="$oc" -v s="$stored" -v t="$(du -sm "$table" | cut -f1)" 'BEGIN {
			printf "| %d | %s | %.2f | %.2f | %.2f | %.2fx | %.2fx | %.0f | %d |", n, f, kw, kc, fc, kc / fc, oc / fc, s / 1048576, t }')")
		ncols=$(awk -F, '{print NF}' <<<"$cols")
		awk -v n="$n" -v f="$format" -v k="$ncols" -v m="$matched" -v ow="$ow" -v dw="$dw" -v fw="$fw" -v oc="$oc" -v dc="$dc" -v fc="$fc" \
			-v orss="$orss" -v drss="$drss" -v t="$tmb" -v z="$zmb" -v g="$gmb" 'BEGIN {
			printf "| %d | %s | %d | %d | %.2f | %.2f | %.2f | %.2fx | %.2fx | %.2f | %.2f | %.2f | %d | %d | %s | %s | %s | %.2fx |\n",
				n, f, k, m, ow, dw, fw, dw / ow, ow / fw, oc, dc, fc, orss, drss, t, z, g, oc / fc }'
		# Where our CPU goes, from one more run with a CPU profile: the zip
		# workers (deflate and CRC-32 of the same text the floor deflates)
		# and the rest (scan, rows, SHA-256, the file).
		rm -f "$zip"
		"${ours[@]}" -cpuprofile "$work/ours.prof" >/dev/null 2>"$work/ours.err" || { cat "$work/ours.err" >&2; exit 1; }
		split+=("$(go tool pprof -top -cum "$dl" "$work/ours.prof" 2>/dev/null | awk -v n="$n" -v f="$format" -v fc="$fc" '
			function secs(v) { return v ~ /ms$/ ? substr(v, 1, length(v) - 2) / 1000 : (v ~ /us$/ ? 0 : substr(v, 1, length(v) - 1)) }
			/Total samples =/ { for (i = 1; i <= NF; i++) if ($i == "=") total = secs($(i + 1)) }
			/internal\/pzip\.\(\*Writer\)\.work$/ { zipw = secs($4) }
			END { printf "| %d | %s | %.2f | %.2f | %.2f | %.2f | %.2fx | %.2fx |", n, f, total, zipw, total - zipw, fc, zipw / fc, (total - zipw) / fc }')")
	done
done
echo
echo "Where our CPU goes (one profiled run): the zip workers deflate and CRC the text the floor deflates; the rest is the scan, the rows, SHA-256 and the file. Within 1.5x the floor needs zip/floor + rest/floor <= 1.5."
echo
echo "| records | format | profiled CPU s | zip workers CPU s | rest CPU s | floor CPU s | zip/floor | rest/floor |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${split[@]}"
echo
echo "What a table of pre-formatted lines could at best cost (bench/copyfloor, fastest of the runs): its Snappy pages of the text's lines, and the table as it is."
echo
echo "| records | format | copy wall s | copy CPU s | floor CPU s | copy/floor CPU | ours/floor CPU | lines' pages MB | table MB |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${copy[@]}"
