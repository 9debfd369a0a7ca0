#!/usr/bin/env bash
# Rollover benchmark (issue 15): a generated table of many small datasets
# (bench/gen: Zipf-distributed sizes, most datasets a few hundred records),
# counted before and after `downloader rollover`, side by side in one run.
#
#   bash bench/rollover.sh 1000000       # DATASETS=2000 RUNS=3 WORK=dir
#   SRC=dir bash bench/rollover.sh       # an existing table instead (copied, never changed)
#
# It prints the rollover's wall and CPU time and peak RSS, the table's files,
# row groups and manifest size before and after, then for each predicate:
# the matches (the same before and after, or the script fails), the splits
# and those pruned, the rows the scan read, the count on an open table (warm,
# best of RUNS after a first count that opens the files) and as a whole new
# process (best of RUNS), before and after, with the after/before ratios.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-1000000}"
datasets="${DATASETS:-2000}"
runs="${RUNS:-3}"
work="${WORK:-$root/.work/bench}"
mkdir -p "$work"
cd "$root"
go build -o "$work/downloader" ./cmd/downloader
go build -o "$work/gen" ./bench/gen
src="${SRC:-$work/rollover-$n-$datasets}"
if [ ! -f "$src/manifest.json" ]; then
	rm -rf "$src"
	"$work/gen" -table "$src" -records "$n" -datasets "$datasets"
fi
table="$work/rollover-run"
rm -rf "$table"
cp -a "$src" "$table"

# name | portal query
queries=(
	"country NL|country=NL"
	"country KE (rare)|country=KE"
	"year 2000-2010|year=2000,2010"
	"year 1800-1850|year=1800,1850"
	"taxon 3 (any rank)|taxonKey=3"
	"specimens with coordinates|basisOfRecord=PRESERVED_SPECIMEN&hasCoordinate=true"
	"DK+SE since 2000 with coordinates|country=DK&country=SE&year=2000,*&hasCoordinate=true"
)

now() { date +%s%N; }
declare -A res
# measure LABEL: counts every query on $table into res[LABEL,name,...].
measure() {
	local label="$1"
	for q in "${queries[@]}"; do
		IFS='|' read -r name qs <<<"$q"
		local best="" count ms
		for _ in $(seq "$runs"); do
			local t0
			t0=$(now)
			count=$("$work/downloader" count --table "$table" --query "$qs")
			ms=$(( ($(now) - t0) / 1000000 ))
			if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
		done
		local report
		report=$("$work/downloader" count --table "$table" --query "$qs" --repeat "$((runs + 1))" -v 2>&1 >/dev/null | tail -n "$runs")
		local warm
		warm=$(sed -n 's/.* in \([0-9.]*\)s .*/\1/p' <<<"$report" | sort -n | head -1)
		local line
		line=$(tail -1 <<<"$report")
		res[$label,$name,count]=$count
		res[$label,$name,process]=$best
		res[$label,$name,warm]=$(echo "$warm * 1000" | bc -l)
		res[$label,$name,splits]=$(sed 's/.*: \([0-9]*\) splits (\([0-9]*\) pruned).*/\1/' <<<"$line")
		res[$label,$name,pruned]=$(sed 's/.*: \([0-9]*\) splits (\([0-9]*\) pruned).*/\2/' <<<"$line")
		res[$label,$name,scanned]=$(sed 's/.* rows, \([0-9]*\) scanned.*/\1/' <<<"$line")
	done
}
layout() {
	local files
	files=$(find "$table/data" -name '*.parquet' | wc -l)
	echo "$files files, $(stat -c %s "$table/manifest.json") manifest bytes"
}

measure before
echo "before: $(layout)"
out=$( { /usr/bin/time -f 'TIME %e %U %S %M' "$work/downloader" rollover --table "$table" --keep-for 0 --keep-snapshots 1; } 2>&1)
echo "$out" | grep -v '^TIME'
read -r _ wall user sys rss <<<"$(grep '^TIME' <<<"$out")"
printf 'rollover: wall %.1f s, CPU %.1f s, peak RSS %d MB\n' "$wall" "$(echo "$user + $sys" | bc -l)" "$((rss / 1024))"
echo "after: $(layout)"
measure after

echo
echo "| predicate | matches | splits (pruned) before | after | rows read before | after | warm ms before | after | after/before | process ms before | after | after/before |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for q in "${queries[@]}"; do
	IFS='|' read -r name _ <<<"$q"
	if [ "${res[before,$name,count]}" != "${res[after,$name,count]}" ]; then
		echo "MISMATCH on $name: ${res[before,$name,count]} before, ${res[after,$name,count]} after" >&2
		exit 1
	fi
	printf '| %s | %s | %s (%s) | %s (%s) | %s | %s | %.1f | %.1f | %.2f | %s | %s | %.2f |\n' "$name" "${res[after,$name,count]}" \
		"${res[before,$name,splits]}" "${res[before,$name,pruned]}" "${res[after,$name,splits]}" "${res[after,$name,pruned]}" \
		"${res[before,$name,scanned]}" "${res[after,$name,scanned]}" \
		"${res[before,$name,warm]}" "${res[after,$name,warm]}" "$(echo "${res[after,$name,warm]} / ${res[before,$name,warm]}" | bc -l)" \
		"${res[before,$name,process]}" "${res[after,$name,process]}" "$(echo "${res[after,$name,process]} / ${res[before,$name,process]}" | bc -l)"
done
