#!/usr/bin/env bash
# HBase scan benchmark: the occurrence/hbase backend's parallel scans (with
# and without predicate pushdown) side by side with Apache's Java HBase client
# scanning the same table single-threaded (caching 1000, cacheBlocks off),
# with and without the same server-side filter.
#
#   bash bench/hbase/run.sh [RECORDS]     (default 200000; loads once per size)
#
# The filtered scans use COUNTRY = CA, 6.3% of the generated records at the
# default size (the output prints matched and total rows); the Go side also
# runs BASIS_OF_RECORD in (OCCURRENCE, MATERIAL_SAMPLE), 9.3% of them, which
# only the filter header answers (no country key ranges).
#
# Needs the HBase of scripts/hbase/start.sh (started if not running).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
records="${1:-200000}"
country="${BENCH_COUNTRY:-CA}"
pred="{\"type\":\"equals\",\"key\":\"COUNTRY\",\"value\":\"$country\"}"
table="occ_bench5_${records}"
work="${BENCH_DIR:-/tmp/downloader-hbase-bench}"
mkdir -p "$work"

eval "$(bash "$root/scripts/hbase/start.sh")"
zk_host="${HBASE_ZK%:*}"; zk_port="${HBASE_ZK#*:}"

if [[ ! -s "$work/classpath.txt" || "$here/pom.xml" -nt "$work/classpath.txt" ]]; then
  (cd "$here" && mvn -B -q dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt")
fi
javac -d "$work" -cp "$(cat "$work/classpath.txt")" "$here/ScanBench.java"
(cd "$root" && go build -o "$work/hbasebench" ./bench/hbase/hbasebench)

"$work/hbasebench" -master "$HBASE_MASTER" -table "$table" -load -records "$records" -predicate "$pred" -only none

java_run() {
  java -Xmx1g --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
    -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true \
    -Dlog4j.configuration=none -cp "$work:$(cat "$work/classpath.txt")" ScanBench "$zk_host" "$zk_port" "$table" "$@" 2>/dev/null
}
pid="$(cat "${HBASE_DIR:-/tmp/downloader-hbase}/hbase.pid")"
ticks() { awk '{print $14+$15}' "/proc/$pid/stat"; }
java_cpu() { # runs java_run and prints the HBase server's CPU seconds per scan
  local a b
  a=$(ticks); java_run "$@"; b=$(ticks)
  awk -v t=$((b - a)) 'BEGIN { printf "     server-cpu per scan %.2fs (average of 3)\n", t / 300 }'
}
for round in $(seq 1 "${ROUNDS:-2}"); do
  echo "round $round ($(uptime | sed 's/.*load/load/'))"
  java_cpu
  java_cpu "$country"
  "$work/hbasebench" -master "$HBASE_MASTER" -table "$table" -predicate "$pred" -server-pid "$pid"
done
