#!/usr/bin/env bash
# Occurrence search API benchmark (issue 16): `downloader serve --role api`
# on a generated table of N records answers GBIF's search routes under
# closed-loop load (bench/apiload, CLIENTS concurrent clients, DURATION
# each), side by side with DuckDB (@duckdb/node-api, 2 threads, one
# connection) answering the same requests over one Parquet file of the
# same records (bench/duckdb/search.mjs). Before timing, each scenario's
# first request is answered by both and compared (record keys in order,
# counts, facet values): the script fails on a difference.
#
#   bash bench/search.sh 10000000    # CLIENTS="1 8 32" DURATION=10s; WORK=dir keeps the table
#
# Scenarios (the values rotate, so that no two consecutive requests are the
# same): a page of 20 with no filter; with a selective predicate (one
# country and year, ~0.05%); with a broad one (year range, 20-60%); at
# offset 10,000 of the broad one; a record by gbifID; facets on country
# and year over all records and with the broad predicate; /occurrence/count
# by country and year. The server runs with its caches off (every request
# counts; identical requests in flight still share one scan), then the
# broad, deep, facet and count scenarios run again with the caches on.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-10000000}"
work="${WORK:-$root/.work/bench}"
DURATION=${DURATION:-10s}
CLIENTS=${CLIENTS:-1 8 32}
duck_seconds=${DUCK_SECONDS:-10}
mkdir -p "$work"
cd "$root"
go build -o "$work/downloader" ./cmd/downloader
go build -o "$work/apiload" ./bench/apiload
go build -o "$work/gen" ./bench/gen
table="$work/table-$n"
if [ ! -f "$table/manifest.json" ]; then
	rm -rf "$table"
	"$work/gen" -table "$table" -records "$n"
fi
(cd bench/duckdb && [ -d node_modules/@duckdb/node-api ] || npm install --no-audit --no-fund --silent)
one="$work/table-$n.parquet"
[ -f "$one" ] || node bench/duckdb/query.mjs prepare "$table" "$one"

tmp=$(mktemp -d /tmp/searchbench.XXXXXX)
cleanup() {
	[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

start() { # extra serve flags...
	"$work/downloader" serve --role api --listen 127.0.0.1:0 --db "sqlite:$tmp/jobs.db" --table "$table" \
		--storage "$tmp/archives" "$@" >"$tmp/serve.out" 2>"$tmp/serve.log" &
	pid=$!
	for _ in $(seq 1 100); do
		grep -q " on http" "$tmp/serve.out" 2>/dev/null && break
		sleep 0.2
	done
	base=$(sed -n 's/.* on \(http[^ ]*\).*/\1/p' "$tmp/serve.out" | head -1)
	[ -n "$base" ] || { cat "$tmp/serve.log" >&2; exit 1; }
}
stop() {
	if ! kill -0 "$pid" 2>/dev/null; then
		cp "$tmp/serve.log" "$work/search-serve.log"
		echo "the server died; its log is in $work/search-serve.log" >&2
		exit 1
	fi
	grep VmHWM "/proc/$pid/status" | awk '{printf "%.0f", $2/1024}' >"$tmp/rss"
	kill "$pid" && wait "$pid" 2>/dev/null || true
	pid=""
}

start --search-cache -1
# Record ids for the lookups: 20 from each of 10 countries' first pages.
ids=$(for c in US DE FR GB NL SE DK BR AU ZA; do
	curl -fsS "$base/v1/occurrence/search?country=$c&limit=20"
done | python3 -c 'import sys, json
for line in sys.stdin.read().replace("}{", "}\n{").splitlines():
    print(" ".join(str(r["key"]) for r in json.loads(line)["results"]))' | tr ' ' '\n' | grep . | tr '\n' ' ')

# The scenarios: API paths and the same requests in SQL, in rotation.
python3 - "$tmp" $ids <<'EOF'
import json, sys
tmp, ids = sys.argv[1], sys.argv[2:]
page = lambda where, off=0: ["SELECT * FROM t" + (" WHERE " + where if where else "") + " LIMIT 20" + (" OFFSET %d" % off if off else ""),
                             "SELECT count(*) FROM t" + (" WHERE " + where if where else "")]
facet = lambda where: ["SELECT countryCode, count(*) AS c FROM t WHERE countryCode IS NOT NULL%s GROUP BY 1 ORDER BY c DESC, 1 LIMIT 10" % where,
                       "SELECT CAST(year AS VARCHAR), count(*) AS c FROM t WHERE year IS NOT NULL%s GROUP BY 1 ORDER BY c DESC, 1 LIMIT 10" % where,
                       "SELECT count(*) FROM t" + (" WHERE" + where[4:] if where else "")]
sc = []
sc.append(("page 1, no filter", ["/v1/occurrence/search?limit=20"], [page("")]))
years = range(1990, 2010)
sc.append(("page 1, selective (country NL, one year)", ["/v1/occurrence/search?limit=20&country=NL&year=%d" % y for y in years],
           [page("countryCode = 'NL' AND year = %d" % y) for y in years]))
froms = range(1950, 2021, 5)
sc.append(("page 1, broad (year range)", ["/v1/occurrence/search?limit=20&year=%d,2020" % y for y in froms],
           [page("year BETWEEN %d AND 2020" % y) for y in froms]))
sc.append(("offset 10,000, broad", ["/v1/occurrence/search?limit=20&offset=10000&year=%d,2020" % y for y in froms],
           [page("year BETWEEN %d AND 2020" % y, 10000) for y in froms]))
sc.append(("record by gbifID", ["/v1/occurrence/%s" % i for i in ids], [["SELECT * FROM t WHERE gbifID = %s" % i] for i in ids]))
sc.append(("facets country + year, all records", ["/v1/occurrence/search?limit=0&facet=country&facet=year"], [facet("")]))
sc.append(("facets country + year, broad (year range)", ["/v1/occurrence/search?limit=0&facet=country&facet=year&year=%d,2020" % y for y in froms],
           [facet(" AND year BETWEEN %d AND 2020" % y) for y in froms]))
cc = [(c, y) for c in ["US", "DE", "SE", "NL", "BR"] for y in (1995, 2005, 2015)]
sc.append(("/occurrence/count (country, year)", ["/v1/occurrence/count?country=%s&year=%d" % cy for cy in cc],
           [["SELECT count(*) FROM t WHERE countryCode = '%s' AND year = %d" % cy] for cy in cc]))
json.dump([{"name": n, "requests": r} for n, _, r in sc], open(tmp + "/duck.json", "w"))
json.dump([{"name": n, "paths": p} for n, p, _ in sc], open(tmp + "/api.json", "w"))
EOF

echo "DuckDB: ${duck_seconds}s per scenario" >&2
node bench/duckdb/search.mjs "$one" "$tmp/duck.json" "$duck_seconds" >"$tmp/duck.out"

# Both engines' first answers must agree.
python3 - "$tmp" "$base" <<'EOF'
import json, sys, urllib.request
tmp, base = sys.argv[1], sys.argv[2]
api = json.load(open(tmp + "/api.json"))
duck = [json.loads(l) for l in open(tmp + "/duck.out")]
for a, d in zip(api, duck):
    body = json.load(urllib.request.urlopen(base + a["paths"][0]))
    chk = d["check"]
    if isinstance(body, int):
        ok = [str(body)] == chk[0]
    elif "results" in body and body.get("facets"):
        ok = all([c["name"] for c in f["counts"]] == chk[i] for i, f in enumerate(body["facets"])) and str(body["count"]) == chk[2][0]
    elif "results" in body:
        ok = [str(r["key"]) for r in body["results"]] == chk[0] and str(body["count"]) == chk[1][0]
    else:
        ok = [str(body["key"])] == chk[0]
    if not ok:
        sys.exit("MISMATCH on %s: API %s, DuckDB %s" % (a["name"], json.dumps(body)[:400], json.dumps(chk)[:400]))
    print("agree: %s" % a["name"], file=sys.stderr)
EOF

load() { # label clients paths-file
	local args=()
	while read -r p; do args+=(-path "$p"); done <"$3"
	"$work/apiload" -url "$base" -c "$2" -duration "$DURATION" -label "$1" "${args[@]}"
}
run_all() { # suffix scenario-index...
	local suffix=$1
	shift
	for i in "$@"; do
		python3 -c "import json,sys; a=json.load(open('$tmp/api.json'))[$i]; print(a['name']); print('\n'.join(a['paths']), file=open('$tmp/paths', 'w'))" >"$tmp/name"
		for c in $CLIENTS; do
			load "$(cat "$tmp/name")$suffix|$c" "$c" "$tmp/paths"
		done
	done
}
run_all "" 0 1 2 3 4 5 6 7 >"$tmp/ours.out"
stop
rss_off=$(cat "$tmp/rss")
start
run_all " (cache on)" 2 3 5 6 7 >>"$tmp/ours.out"
stop
rss_on=$(cat "$tmp/rss")

python3 - "$tmp" "$CLIENTS" "$rss_off" "$rss_on" <<'EOF'
import json, re, sys
tmp, clients, rss_off, rss_on = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4]
duck = {d["name"]: d for d in (json.loads(l) for l in open(tmp + "/duck.out"))}
ours = {}
for line in open(tmp + "/ours.out"):
    label, rest = line.split("\t", 1)
    name, c = label.rsplit("|", 1)
    f = dict(re.findall(r"(requests|errors|req/s|p50|p99) ([0-9.]+)", rest))
    ours.setdefault(name, {})[c] = f
head = "| scenario | DuckDB p50 ms | " + " | ".join("ours %s client%s req/s, p50, p99 ms" % (c, "" if c == "1" else "s") for c in clients) + " | ours/DuckDB p50 (1 client) |"
print(head)
print("|" + "---|" * (3 + len(clients)))
for name, runs in ours.items():
    d = duck.get(name.replace(" (cache on)", ""))
    cells = []
    for c in clients:
        f = runs.get(c, {})
        err = " (%s errors)" % f["errors"] if f.get("errors", "0") != "0" else ""
        cells.append("%.0f, %.1f, %.1f%s" % (float(f["req/s"]), float(f["p50"]), float(f["p99"]), err) if f else "")
    ratio = "%.2g" % (float(runs["1"]["p50"]) / d["p50"]) if d and "1" in runs else ""
    print("| %s | %s | %s | %s |" % (name, "%.1f" % d["p50"] if d else "", " | ".join(cells), ratio))
print("\npeak RSS of the server: %s MB (caches off), %s MB (on)" % (rss_off, rss_on))
EOF
