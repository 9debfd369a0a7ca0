#!/usr/bin/env bash
# Output identity check for refactors: builds `downloader` at BASE_REV and
# from the working tree, exports every download format (and SIMPLE_CSV with
# chosen --fields) for several predicates from the same tables (the demo
# samples and a generated table) with both builds, and compares the unzipped
# entries byte by byte (SIMPLE_PARQUET parts by their schema and rows, read
# with pyarrow; SIMPLE_AVRO files and SIMPLE_WITH_VERBATIM_AVRO entries by
# theirs, read with fastavro, when both builds write the format). The only differences allowed are the download's own
# creation time (metadata.xml dates, citation dates), which the script
# blanks before comparing; zip entry times are not compared (they are the
# export's clock too).
#
# A second pass ingests the demo samples with each build into its own table
# and compares those exports the same way (lastInterpreted and other ingest
# times blanked), so that a change of ingest shows up too.
#
# Usage: bench/outputs.sh BASE_REV [NEW_REV]   (NEW_REV default: the working tree)
# Env: RECORDS (default 200000) in the generated table; WORK (default
# /tmp/downloader-outputs) keeps builds and tables.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:?usage: bench/outputs.sh BASE_REV [NEW_REV]}"
new="${2:-WORKTREE}"
records="${RECORDS:-200000}"
work="${WORK:-/tmp/downloader-outputs}"
rm -rf "$work/out" "$work/demo-old" "$work/demo-new"
mkdir -p "$work/bin" "$work/out"

build() { # rev dir
	local rev=$1 dir=$2
	if [[ "$rev" == "WORKTREE" ]]; then
		(cd "$root" && go build -o "$dir/downloader" ./cmd/downloader && go build -o "$dir/gen" ./bench/gen)
		return
	fi
	local src="$work/src-$(basename "$dir")"
	rm -rf "$src"
	git -C "$root" worktree add --detach "$src" "$rev" >/dev/null
	(cd "$src" && go build -o "$dir/downloader" ./cmd/downloader && go build -o "$dir/gen" ./bench/gen)
	git -C "$root" worktree remove --force "$src"
}
mkdir -p "$work/bin/old" "$work/bin/new"
build "$base" "$work/bin/old"
build "$new" "$work/bin/new"

# Tables, made by the base build so both builds read the same bytes.
"$work/bin/old/downloader" demo --dir "$work/demo-old" >/dev/null
if [[ ! -d "$work/gen-$records" ]]; then
	"$work/bin/old/gen" -table "$work/gen-$records" -records "$records" -datasets 40 >/dev/null
fi

queries=(
	"basisOfRecord=PRESERVED_SPECIMEN&basisOfRecord=HUMAN_OBSERVATION"
	"country=TR"
	"hasCoordinate=true&year=1950,2020"
	""
)
formats=(DWCA SIMPLE_CSV SPECIES_LIST SIMPLE_PARQUET)
# The Avro formats when both builds write them.
for f in SIMPLE_AVRO SIMPLE_WITH_VERBATIM_AVRO MAP_OF_LIFE BIONOMIA; do
	if "$work/bin/old/downloader" export -h 2>&1 | grep -q "$f:"; then
		formats+=("$f")
	fi
done
fields="gbifID,datasetKey,scientificName,countryCode,decimalLatitude,decimalLongitude,eventDate,year,license,issue"

# blank FILE: the download's creation time and ingest times become fixed
# (with or without a zone: SIMPLE_PARQUET's text has lastinterpreted without one).
blank() {
	sed -E -i \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?/TIME/g' \
		-e 's/<pubDate>[^<]*<\/pubDate>/<pubDate>DATE<\/pubDate>/' \
		-e 's/\(([0-9]{1,2} [A-Z][a-z]+ [0-9]{4})\)/(DATE)/g' "$1"
}

# export BUILD TABLE NAME ARGS...: exports and unzips into out/BUILD/NAME.
export_one() {
	local build=$1 table=$2 name=$3
	shift 3
	local dir="$work/out/$build/$name"
	mkdir -p "$dir"
	"$work/bin/$build/downloader" export --table "$table" --progress never -o "$dir.zip" "$@" 2>"$dir.log" >/dev/null || {
		echo "export failed: $build $name: $(cat "$dir.log")" >&2
		return 1
	}
	if [[ "$(head -c 4 "$dir.zip")" == $'Obj\x01' ]]; then
		canonical_avro "$dir.zip" "$dir/records.txt"
	else
		(cd "$dir" && unzip -q "$dir.zip")
	fi
	find "$dir" -path '*occurrence.parquet/*' -type f | while read -r f; do canonical_parquet "$f"; done
	find "$dir" -path '*.avro/*' -type f ! -name '*.txt' | while read -r f; do canonical_avro "$f" "$f.txt" && rm "$f"; done
	find "$dir" -type f \( -name '*.xml' -o -name '*.txt' -o -name '*.csv' \) | while read -r f; do blank "$f"; done
}

# canonical_parquet FILE: replaces a Parquet part by its schema and rows as
# text (pyarrow). arrow-go's writer orders a few footer bytes differently
# from run to run (the same build twice gives files that differ in two bytes
# of the footer), so the parts are compared by what they hold.
canonical_parquet() {
	python3 - "$1" <<'PY'
import sys, datetime, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
def text(v):
    return v.isoformat() if isinstance(v, datetime.datetime) else repr(v)
with open(sys.argv[1] + ".txt", "w") as out:
    out.write(str(t.schema) + "\n")
    for row in t.to_pylist():
        out.write("\t".join(k + "=" + text(v) for k, v in row.items()) + "\n")
PY
	rm "$1"
}

# canonical_avro FILE OUT: an Avro file's schema and records as text
# (fastavro); its sync marker is random, so files are compared by what they
# hold.
canonical_avro() {
	python3 - "$1" "$2" <<'PY'
import sys, json, fastavro
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "w") as out:
    r = fastavro.reader(f)
    out.write(json.dumps(r.writer_schema, sort_keys=True) + "\n")
    for rec in r:
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
PY
}

run_all() { # build demo-table
	local build=$1 demo=$2 i
	for table in "$demo" "$work/gen-$records"; do
		local t
		t=$(basename "$table")
		[[ "$table" == "$demo" ]] && t=demo
		for i in "${!queries[@]}"; do
			for f in "${formats[@]}"; do
				export_one "$build" "$table" "$t-q$i-$f" --format "$f" --query "${queries[$i]}"
			done
			export_one "$build" "$table" "$t-q$i-fields" --format SIMPLE_CSV --fields "$fields" --query "${queries[$i]}"
		done
	done
}

status=0
# compare NAME LABEL: out/old against out/new, byte by byte.
compare() {
	if diff -r -x "*.zip" -x "*.log" "$work/out/old" "$work/out/new" >"$work/diff-$1.txt"; then
		echo "$2: all $(find "$work/out/new" -mindepth 2 -type f | wc -l) unzipped entries identical"
	else
		echo "$2: outputs differ (first lines of $work/diff-$1.txt):" >&2
		head -40 "$work/diff-$1.txt" >&2
		status=1
	fi
}

run_all old "$work/demo-old/table"
run_all new "$work/demo-old/table"
compare same "same tables"

# Second pass: each build ingests the demo samples itself.
"$work/bin/new/downloader" demo --dir "$work/demo-new" >/dev/null
rm -rf "$work/out/old" "$work/out/new"
for b in old new; do
	for i in "${!queries[@]}"; do
		for f in "${formats[@]}"; do
			export_one "$b" "$work/demo-$b/table" "ingest-q$i-$f" --format "$f" --query "${queries[$i]}"
		done
	done
done
compare ingest "own ingest (times blanked)"
exit $status
