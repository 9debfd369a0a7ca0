#!/usr/bin/env bash
# BIONOMIA benchmark, side by side in one run on the wide generated table
# (bench/lib.sh wide_table) for the 85%-selective predicate
# hasCoordinate=true, whose records all have a collector and an identifier:
#   ours: downloader export --format BIONOMIA (the records' Avro file, and
#     their gbifIDs grouped by agent, family and agent ID through an
#     external sort on disk);
#   DuckDB (2 threads) running GBIF's query (execute-bionomia-query.ftl)
#     over the same records in one Parquet file: the records' columns,
#     and the three groupings with list() and a full outer join, each
#     written as zstd Parquet (DuckDB writes no Avro); the verbatim values
#     are read from the table's verbatim JSON column, as ours reads them.
# Both must make as many agents and families, with the same totals and
# as many gbifIDs listed. Runs alternate RUNS times
# (default 3); the fastest of each is reported, with the highest peak RSS.
#
# Usage: bench/bionomia.sh [RECORDS...]   (default: 1000000)
# Env: BENCH_DIR (default /tmp/downloader-bench) keeps generated tables;
# needs python3 with duckdb and fastavro (scripts/ci/export-readers.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup 1000000 "$@"
query="hasCoordinate=true"
build_tools gen
need_python duckdb fastavro

duck_sql() { # parquet outdir
	local v="" t
	for t in occurrenceID dateIdentified decimalLatitude decimalLongitude country eventDate year identifiedBy \
		identifiedByID institutionCode collectionCode catalogNumber recordedBy recordedByID scientificName typeStatus; do
		v+=", json_extract_string(verbatim, '\$.$t') AS v_$t"
	done
	cat <<SQL
SET threads = 2;
CREATE TEMP TABLE b AS SELECT CAST(gbifID AS VARCHAR) AS gbifID, datasetKey, license, basisOfRecord, countryCode,
  dateIdentified, strftime(eventDateStart, '%Y-%m-%dT%H:%M:%S') AS eventDate,
  coalesce(contains(mediaType, 'StillImage'), false) AS hasImage, kingdom, family, scientificName $v
FROM read_parquet('$1') WHERE hasCoordinate AND (recordedBy IS NOT NULL OR identifiedBy IS NOT NULL);
COPY b TO '$2/occurrence.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT coalesce(r.agent, i.agent) AS agent, coalesce(r.n, 0) AS totalRecordedBy, coalesce(i.n, 0) AS totalIdentifiedBy,
  r.ids AS gbifIDsRecordedBy, i.ids AS gbifIDsIdentifiedBy
  FROM (SELECT v_recordedBy AS agent, count(*) AS n, list(gbifID) AS ids FROM b WHERE v_recordedBy IS NOT NULL GROUP BY 1) r
  FULL OUTER JOIN (SELECT v_identifiedBy AS agent, count(*) AS n, list(gbifID) AS ids FROM b WHERE v_identifiedBy IS NOT NULL GROUP BY 1) i
  ON r.agent = i.agent) TO '$2/agents.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT family, count(*) AS total, list(gbifID) AS gbifIDsFamily FROM b WHERE family IS NOT NULL GROUP BY 1)
  TO '$2/families.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT coalesce(r.id, i.id) AS identifier, coalesce(r.n, 0) AS totalRecordedByID, coalesce(i.n, 0) AS totalIdentifiedByID,
  r.ids AS gbifIDsRecordedByID, i.ids AS gbifIDsIdentifiedByID
  FROM (SELECT v_recordedByID AS id, count(*) AS n, list(gbifID) AS ids FROM b WHERE v_recordedByID IS NOT NULL GROUP BY 1) r
  FULL OUTER JOIN (SELECT v_identifiedByID AS id, count(*) AS n, list(gbifID) AS ids FROM b WHERE v_identifiedByID IS NOT NULL GROUP BY 1) i
  ON r.id = i.id) TO '$2/identifiers.parquet' (FORMAT parquet, COMPRESSION zstd);
SQL
}

echo "| records | matched | agents | families | ours wall s | DuckDB wall s | DuckDB/ours | ours CPU s | DuckDB CPU s | ours RSS MB | DuckDB RSS MB | zip MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
	wide_table "$n"
	table="$work/wide$n"
	one="$table.one.parquet"
	matched=$("$dl" count --table "$table" --query "$query")
	zip="$work/bionomia.zip" duck="$work/bionomia.duck"
	mkdir -p "$duck"
	duck_sql "$one" "$duck" >"$work/bionomia.sql"
	ow="" dw="" orss=0 drss=0
	for i in $(seq "$runs"); do
		rm -f "$zip" "$duck"/*
		keep o ours "$dl" export --table "$table" --query "$query" --format BIONOMIA --progress never -o "$zip" --tmp "$work"
		keep d duckdb python3 -c 'import duckdb,sys; duckdb.sql(open(sys.argv[1]).read())' "$work/bionomia.sql"
	done
	read -r agents families rows < <(python3 - "$zip" "$duck" <<'PY'
import sys, io, zipfile, fastavro, duckdb
z = zipfile.ZipFile(sys.argv[1])
# Each file's records and, for the groupings, the sum of their totals
# and of their lists' lengths: both sides must agree on all of them.
def ours_of(name, totals, lists):
    n, t, l = 0, 0, 0
    for r in fastavro.reader(io.BytesIO(z.read(name + ".avro/000000"))):
        n += 1
        t += sum(r[c] for c in totals)
        l += sum(len(r[c] or []) for c in lists)
    return [n, t, l]
def duck_of(name, totals, lists):
    q = f"SELECT count(*), {' + '.join(f'sum({c})' for c in totals) or '0'}, " \
        f"{' + '.join(f'coalesce(sum(len({c})), 0)' for c in lists) or '0'} FROM '{sys.argv[2]}/{name}.parquet'"
    return [int(v) for v in duckdb.sql(q).fetchone()]
files = [("agents", ["totalRecordedBy", "totalIdentifiedBy"], ["gbifIDsRecordedBy", "gbifIDsIdentifiedBy"]),
         ("families", ["total"], ["gbifIDsFamily"]), ("occurrence", [], [])]
ours = [ours_of(*f) for f in files]
duck = [duck_of(*f) for f in files]
if ours != duck:
    sys.exit(f"ours {ours} (records, totals, listed gbifIDs of agents, families, occurrence); DuckDB {duck}")
print(ours[0][0], ours[1][0], ours[2][0])
PY
)
	[[ "$rows" == "$matched" ]] || { echo "BIONOMIA wrote $rows records, count says $matched" >&2; exit 1; }
	awk -v n="$n" -v m="$matched" -v a="$agents" -v f="$families" -v ow="$ow" -v dw="$dw" -v oc="$oc" -v dc="$dc" \
		-v or="$orss" -v dr="$drss" -v zm="$(stat -c %s "$zip")" 'BEGIN {
		printf "| %d | %d | %d | %d | %.2f | %.2f | %.2fx | %.2f | %.2f | %d | %d | %.1f |\n",
			n, m, a, f, ow, dw, dw / ow, oc, dc, or, dr, zm / 1048576 }'
done
