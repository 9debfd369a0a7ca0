#!/usr/bin/env bash
# SIMPLE_AVRO benchmark, side by side in one run on the wide generated
# table (bench/lib.sh wide_table) for the 85%-selective predicate
# hasCoordinate=true, GBIF's 50 simple columns:
#   ours: downloader export --format SIMPLE_AVRO (blocks deflated on 2
#     goroutines, level 5);
#   SIMPLE_CSV of the same 50 columns (ours), the text download of the
#     same records;
#   the compression floor: klauspost flate level 5 on 2 goroutines over
#     the Avro file's uncompressed content (our file rewritten with the
#     null codec by fastavro, untimed; bench/floor);
#   fastavro: the C-accelerated Python library rewriting our file with
#     deflate level 5 (decoding and encoding every record, one thread),
#     the cost of an Avro implementation users reach for.
# DuckDB writes no Avro, and GBIF's writer (Spark) does not run here.
# A second table does the same for SIMPLE_WITH_VERBATIM_AVRO (its entry
# occurrence.avro/000000: the simple fields and 191 verbatim ones), with
# the DWCA of the same records (which carries the same verbatim values in
# verbatim.txt) in SIMPLE_CSV's place; a third for MAP_OF_LIFE (76
# fields, ten of them verbatim), with SIMPLE_AVRO of the same records in
# SIMPLE_CSV's place.
# Runs alternate RUNS times (default 3); the fastest of each is reported,
# with the highest peak RSS.
#
# Usage: bench/avro.sh [RECORDS...]   (default: 1000000)
# Env: BENCH_DIR (default /tmp/downloader-bench) keeps generated tables;
# needs python3 with duckdb and fastavro (scripts/ci/export-readers.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup 1000000 "$@"
query="hasCoordinate=true"
build_tools floor gen
need_python duckdb fastavro

rewrite='
import sys, fastavro
codec, level = sys.argv[3], int(sys.argv[4])
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as out:
    r = fastavro.reader(f)
    fastavro.writer(out, r.writer_schema, r, codec=codec, codec_compression_level=level if codec == "deflate" else None)
'

mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# measure FORMAT OUT PEER PEER_OUT AVRO: RUNS alternated runs of the export
# of FORMAT to OUT, of PEER to PEER_OUT, the floor over the Avro container
# AVRO (OUT itself, or its entry) rewritten uncompressed, and fastavro
# rewriting AVRO; sets the fastest wall and CPU seconds of each
# (ow oc, qw qc, fw fc, pw pc) and the export's highest peak RSS (orss),
# and checks that AVRO holds the records the table counts.
measure() {
	local format=$1 out=$2 peer=$3 peer_out=$4 avro=$5 i rows
	ow="" qw="" fw="" pw="" orss=0
	for i in $(seq "$runs"); do
		keep o ours "$dl" export --table "$table" --query "$query" --format "$format" --progress never -o "$out"
		keep q peer "$dl" export --table "$table" --query "$query" --format "$peer" --progress never -o "$peer_out"
		[[ "$avro" == "$out" ]] || unzip -p "$out" occurrence.avro/000000 >"$avro"
		[[ -f "$raw" ]] || python3 -c "$rewrite" "$avro" "$raw" null 0
		keep f floor "$work/bin/floor" -level 5 -workers 2 "$raw"
		keep p fastavro python3 -c "$rewrite" "$avro" "$fast" deflate 5
	done
	rows=$(python3 -c 'import sys, fastavro; print(sum(1 for _ in fastavro.reader(open(sys.argv[1], "rb"))))' "$avro")
	[[ "$rows" == "$matched" ]] || { echo "$format wrote $rows records, count says $matched" >&2; exit 1; }
}

# row N MATCHED FILE...: one table row of the last measure (ours, the peer,
# the floor, fastavro; wall then CPU; ours/floor CPU, fastavro/ours wall,
# ours' RSS), then the size of each FILE in MB.
row() {
	local n=$1 m=$2 f mbs=""
	shift 2
	for f in "$@"; do mbs+=" $(mb "$f") |"; done
	awk -v n="$n" -v m="$m" -v ow="$ow" -v qw="$qw" -v fw="$fw" -v pw="$pw" -v oc="$oc" -v qc="$qc" -v fc="$fc" -v pc="$pc" \
		-v r="$orss" -v s="$mbs" 'BEGIN {
		printf "| %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2fx | %.1fx | %d |%s\n",
			n, m, ow, qw, fw, pw, oc, qc, fc, pc, oc / fc, pw / ow, r, s }'
}

raw="$work/raw.avro" fast="$work/fastavro.avro"
echo "| records | matched | Avro wall s | SIMPLE_CSV wall s | floor wall s | fastavro wall s | Avro CPU s | SIMPLE_CSV CPU s | floor CPU s | fastavro CPU s | Avro/floor CPU | fastavro/Avro wall | Avro RSS MB | Avro MB | zip MB | fastavro MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	wide_table "$n"
	table="$work/wide$n"
	matched=$("$dl" count --table "$table" --query "$query")
	avro="$work/out.avro" zip="$work/out.zip"
	measure SIMPLE_AVRO "$avro" SIMPLE_CSV "$zip" "$avro"
	row "$n" "$matched" "$avro" "$zip" "$fast"
	rm -f "$raw" "$fast"
done

echo
echo "| records | matched | verbatim Avro wall s | DWCA wall s | floor wall s | fastavro wall s | verbatim Avro CPU s | DWCA CPU s | floor CPU s | fastavro CPU s | verbatim Avro/floor CPU | fastavro/verbatim Avro wall | verbatim Avro RSS MB | zip MB | DWCA MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	table="$work/wide$n"
	matched=$("$dl" count --table "$table" --query "$query")
	vzip="$work/verbatim.zip" entry="$work/verbatim.avro" dwca="$work/out.zip"
	measure SIMPLE_WITH_VERBATIM_AVRO "$vzip" DWCA "$dwca" "$entry"
	row "$n" "$matched" "$vzip" "$dwca"
	rm -f "$raw" "$fast" "$entry"
done

echo
echo "| records | matched | MAP_OF_LIFE wall s | SIMPLE_AVRO wall s | floor wall s | fastavro wall s | MAP_OF_LIFE CPU s | SIMPLE_AVRO CPU s | floor CPU s | fastavro CPU s | MAP_OF_LIFE/floor CPU | fastavro/MAP_OF_LIFE wall | MAP_OF_LIFE RSS MB | MAP_OF_LIFE MB | SIMPLE_AVRO MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	table="$work/wide$n"
	matched=$("$dl" count --table "$table" --query "$query")
	mol="$work/mol.avro" simple="$work/out.avro"
	measure MAP_OF_LIFE "$mol" SIMPLE_AVRO "$simple" "$mol"
	row "$n" "$matched" "$mol" "$simple"
	rm -f "$raw" "$fast"
done
