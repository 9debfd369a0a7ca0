#!/usr/bin/env bash
# gbifID check at scale: generates N records (default 1,000,000), exports them
# as a DWCA download, ingests that archive three times into one fresh table
# (a first ingest, then two re-ingests of the same dataset) and checks after
# each that every gbifID is below 2^53, unique, one per record, and that each
# occurrenceID keeps its gbifID from ingest to ingest.
#
#   bash bench/ids.sh [N]    # TABLE=hbase://host:port/name to use HBase
#
# Prints each ingest's wall time and records/s (CPU seconds and peak RSS
# with GNU time), the load average and the checks' results;
# exits non-zero when a check fails.
# Env: BENCH_DIR (default /tmp/downloader-ids) keeps the generated table,
# the archive and the exports; TABLE overrides the ingest table (default a
# fresh directory under BENCH_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-1000000}"
work="${BENCH_DIR:-/tmp/downloader-ids}"
mkdir -p "$work/bin"
(cd "$root" && go build -o "$work/bin/downloader" ./cmd/downloader && go build -o "$work/bin/gen" ./bench/gen)
dl="$work/bin/downloader"

gen="$work/gen-$n"
if [ ! -f "$gen/manifest.json" ]; then
	rm -rf "$gen"
	"$work/bin/gen" -table "$gen" -records "$n"
fi
archive="$work/download-$n.zip"
if [ ! -f "$archive" ]; then
	"$dl" export --table "$gen" --query '' --format DWCA -o "$archive" >/dev/null
fi

table="${TABLE:-$work/ingest-table}"
if [[ "$table" != hbase://* ]]; then
	rm -rf "$table"
fi

# ids ROUND: writes the table's "occurrenceID<TAB>gbifID" pairs, sorted, to
# $work/ids-ROUND.tsv and checks them.
ids() {
	local out="$work/ids-$1.tsv" zip="$work/ids-$1.zip"
	"$dl" export --table "$table" --query '' --format SIMPLE_CSV --fields occurrenceID,gbifID -o "$zip" >/dev/null
	unzip -p "$zip" | tail -n +2 | LC_ALL=C sort >"$out"
	rm -f "$zip"
	# 2^53 = 9007199254740992 (16 digits): compared as digit strings, which
	# awk's doubles could not do exactly.
	awk -F'\t' -v want="$n" -v round="$1" '
		$2 !~ /^[0-9]+$/ || $2 == 0 { printf "round %s: bad gbifID \"%s\" for %s\n", round, $2, $1; bad++ }
		length($2) > 16 || (length($2) == 16 && $2 >= "9007199254740992") { printf "round %s: gbifID %s >= 2^53\n", round, $2; big++ }
		{ rows++; if ($2 + 0 > max) max = $2 + 0 }
		END {
			printf "round %s: %d records, largest gbifID %d, %d not below 2^53, %d malformed\n", round, rows, max, big, bad
			exit (rows != want || big > 0 || bad > 0)
		}' "$out"
	local dups
	dups=$(cut -f2 "$out" | LC_ALL=C sort | uniq -d | wc -l)
	echo "round $1: $dups gbifIDs held by more than one record"
	[ "$dups" -eq 0 ]
}

# CPU seconds and peak RSS of each ingest, when GNU time is there (wall
# time on a shared machine says more about the other sessions).
timed=()
if [ -x /usr/bin/time ]; then
	timed=(/usr/bin/time -f '%U %S %M' -o "$work/time.txt")
fi

status=0
for round in 1 2 3; do
	start=$(date +%s.%N)
	"${timed[@]}" "$dl" ingest --table "$table" --dataset-key ids-check "$archive" >"$work/ingest-$round.txt" 2>&1 || {
		cat "$work/ingest-$round.txt" >&2
		exit 1
	}
	end=$(date +%s.%N)
	grep -o '[0-9]* records, [0-9]* broken rows skipped.*records/s)' "$work/ingest-$round.txt" | sed "s/^/round $round: /"
	awk -v s="$start" -v e="$end" -v r="$round" 'BEGIN { printf "round %s: ingest wall %.1fs\n", r, e - s }'
	if ((${#timed[@]})); then
		awk -v r="$round" '{ printf "round %s: ingest CPU %.1fs (user %.1fs, sys %.1fs), peak RSS %d MB\n", r, $1 + $2, $1, $2, $3 / 1024 }' "$work/time.txt"
	fi
	echo "round $round: load average $(cut -d' ' -f1-3 /proc/loadavg)"
	ids "$round" || status=1
	if ((round > 1)); then
		if cmp -s "$work/ids-1.tsv" "$work/ids-$round.tsv"; then
			echo "round $round: every occurrenceID kept its gbifID"
		else
			echo "round $round: $(LC_ALL=C comm -13 "$work/ids-1.tsv" "$work/ids-$round.tsv" | wc -l) (occurrenceID, gbifID) pairs changed"
			status=1
		fi
	fi
done
if ((status == 0)); then
	echo "ids check: OK ($n records, 3 ingests)"
else
	echo "ids check: FAILED" >&2
fi
exit $status
