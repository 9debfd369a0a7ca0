#!/usr/bin/env bash
# FASTA_ARCHIVE benchmark, side by side in one run, on a generated table
# of which a share of the records (DNA, default 0.3) carry eDNA reads in
# their DNA-derived data (bench/gen -dna: one to three reads of 170 to 550
# bases a record, some in lower case, with gaps or runs of N, a few not
# sequences): the FASTA archive of every record, against
#   the DWCA of the same records (IS_SEQUENCED=true), the same archive
#     without the sequences' interpretation and files, and
#   the compression floor: klauspost flate level 5 on 2 goroutines over the
#     uncompressed text of the FASTA archive's entries (bench/floor).
# Runs alternate RUNS times (default 3); the fastest of each is reported,
# with the highest peak RSS.
#
# Usage: bench/fasta.sh [RECORDS...]   (default: 1000000)
# Env: BENCH_DIR (default /tmp/downloader-bench) keeps generated tables;
# DNA, the share of records with reads.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup 1000000 "$@"
build_tools floor gen
share="${DNA:-0.3}"

echo "| records | with reads | sequences | FASTA wall s | DWCA wall s | floor wall s | FASTA CPU s | DWCA CPU s | floor CPU s | FASTA/DWCA wall | FASTA/floor CPU | FASTA RSS MB | text MB | zip MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	table="$work/dna$n-$share"
	[[ -d "$table" ]] || "$work/bin/gen" -table "$table" -records "$n" -dna "$share" >/dev/null
	fasta="$work/fasta.zip" dw="$work/fasta-dwca.zip" raw="$work/fasta-raw.txt"
	fw="" dww="" flw="" frss=0
	for _ in $(seq "$runs"); do
		rm -f "$fasta" "$dw"
		read -r _ w c r < <(timed fasta "$dl" export --table "$table" --format FASTA_ARCHIVE --progress never -o "$fasta" --tmp "$work")
		if faster "$w" "$fw"; then fw=$w fc=$c; fi
		((r > frss)) && frss=$r
		read -r _ w c _ < <(timed dwca "$dl" export --table "$table" --query IS_SEQUENCED=true --format DWCA --progress never -o "$dw" --tmp "$work")
		if faster "$w" "$dww"; then dww=$w dwc=$c; fi
		unzip -p "$fasta" occurrence.txt verbatim.txt multimedia.txt verbatim/dnaderiveddata.txt sequences.fasta sequences.txt >"$raw"
		read -r _ w c _ < <(timed floor "$work/bin/floor" -level 5 -workers 2 "$raw")
		if faster "$w" "$flw"; then flw=$w flc=$c; fi
	done
	records=$(($(unzip -p "$fasta" occurrence.txt | wc -l) - 1))
	seqs=$(grep -c '^>' <(unzip -p "$fasta" sequences.fasta))
	tmb=$(awk -v b="$(stat -c %s "$raw")" 'BEGIN { printf "%.1f", b / 1048576 }')
	zmb=$(awk -v b="$(stat -c %s "$fasta")" 'BEGIN { printf "%.1f", b / 1048576 }')
	rm -f "$raw"
	awk -v n="$n" -v m="$records" -v s="$seqs" -v fw="$fw" -v dw="$dww" -v lw="$flw" -v fc="$fc" -v dc="$dwc" -v lc="$flc" -v r="$frss" -v t="$tmb" -v z="$zmb" 'BEGIN {
		printf "| %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2fx | %.2fx | %d | %s | %s |\n", n, m, s, fw, dw, lw, fc, dc, lc, fw / dw, fc / lc, r, t, z }'
done
