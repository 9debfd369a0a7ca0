#!/usr/bin/env bash
# Starts a single-node HBase (standalone mode: in-process ZooKeeper, one master
# and HBASE_REGION_SERVERS region servers in one JVM) on 127.0.0.1 for the
# integration tests of occurrence/hbase. Idempotent: a running instance started
# from the same HBASE_DIR is reused. Needs Java 17 and Maven (Maven Central only;
# downloads are cached in ~/.m2). No stdin, works as root.
#
# Environment (all optional):
#   HBASE_DIR            state, config and logs   (default /tmp/downloader-hbase)
#   HBASE_MASTER_PORT    master RPC port          (default 16000)
#   HBASE_ZK_PORT        ZooKeeper client port    (default 2181)
#   HBASE_REGION_SERVERS region servers in the JVM (default 2, so regions can move)
#   HBASE_HEAP           JVM heap                 (default 3g)
#
# On success it prints and writes $HBASE_DIR/env with
#   export HBASE_MASTER=127.0.0.1:<master port>
#   export HBASE_ZK=127.0.0.1:<zk port>
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${HBASE_DIR:-/tmp/downloader-hbase}"
master_port="${HBASE_MASTER_PORT:-16000}"
zk_port="${HBASE_ZK_PORT:-2181}"
rs_count="${HBASE_REGION_SERVERS:-2}"
heap="${HBASE_HEAP:-3g}"
timeout_s="${HBASE_START_TIMEOUT:-240}"

mkdir -p "$dir"
envfile="$dir/env"
pidfile="$dir/hbase.pid"
log="$dir/hbase.log"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null && [[ -f "$envfile" ]] \
  && grep -q "initialization" "$dir/ready" 2>/dev/null; then
  echo "hbase: already running (pid $(cat "$pidfile"))" >&2
  cat "$envfile"
  exit 0
fi

if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
    echo "hbase: installing Java 17 and Maven (apt-get)" >&2
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q openjdk-17-jdk-headless maven; } >&2
  fi
fi
java_major="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)"
if [[ "${java_major:-0}" -lt 11 ]]; then
  echo "hbase: need Java 11+ (17 preferred), found '${java_major:-none}'" >&2
  exit 1
fi
command -v mvn >/dev/null || { echo "hbase: mvn not found (apt-get install -y maven)" >&2; exit 1; }

cp_file="$dir/classpath.txt"
if [[ ! -s "$cp_file" || "$here/pom.xml" -nt "$cp_file" ]]; then
  echo "hbase: resolving HBase from Maven Central" >&2
  (cd "$here" && mvn -B -q dependency:build-classpath -Dmdep.outputFile="$cp_file") >&2
fi

# Fresh state on every (re)start: tests create their own tables.
rm -rf "$dir/data" "$dir/zk" "$dir/tmp" "$dir/ready"
mkdir -p "$dir/conf" "$dir/data" "$dir/zk" "$dir/tmp"
cat >"$dir/conf/hbase-site.xml" <<XML
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.cluster.distributed</name><value>false</value></property>
  <property><name>hbase.rootdir</name><value>file://$dir/data</value></property>
  <property><name>hbase.tmp.dir</name><value>$dir/tmp</value></property>
  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$zk_port</value></property>
  <property><name>hbase.zookeeper.property.dataDir</name><value>$dir/zk</value></property>
  <property><name>hbase.master.port</name><value>$master_port</value></property>
  <property><name>hbase.master.ipc.address</name><value>127.0.0.1</value></property>
  <property><name>hbase.master.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.port</name><value>0</value></property>
  <property><name>hbase.regionserver.ipc.address</name><value>127.0.0.1</value></property>
  <property><name>hbase.unsafe.regionserver.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
  <property><name>hbase.localcluster.assign.random.ports</name><value>false</value></property>
  <property><name>hbase.balancer.period</name><value>3600000</value></property>
  <property><name>hbase.regionserver.handler.count</name><value>30</value></property>
  <property><name>hbase.client.scanner.timeout.period</name><value>10000</value></property>
</configuration>
XML
cat >"$dir/conf/log4j.properties" <<PROPS
log4j.rootLogger=INFO,F
log4j.appender.F=org.apache.log4j.FileAppender
log4j.appender.F.File=$log
log4j.appender.F.Append=false
log4j.appender.F.layout=org.apache.log4j.PatternLayout
log4j.appender.F.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n
log4j.logger.org.apache.zookeeper=WARN
log4j.logger.org.apache.hadoop.metrics2=WARN
PROPS

jvm_flags=(
  "-Xmx$heap" -XX:+UseG1GC
  -Djava.net.preferIPv4Stack=true
  -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
  --add-modules jdk.unsupported
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent=ALL-UNNAMED
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-exports java.base/sun.net.dns=ALL-UNNAMED
  --add-exports java.base/sun.net.util=ALL-UNNAMED
)

echo "hbase: starting (log $log)" >&2
HADOOP_USER_NAME="${HADOOP_USER_NAME:-hbase}" \
  setsid java "${jvm_flags[@]}" -cp "$dir/conf:$(cat "$cp_file")" \
  org.apache.hadoop.hbase.master.HMaster --localRegionServers="$rs_count" start \
  </dev/null >"$dir/stdout.log" 2>&1 &
echo $! >"$pidfile"

deadline=$((SECONDS + timeout_s))
while :; do
  if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "hbase: process exited during startup; last lines:" >&2
    tail -40 "$log" "$dir/stdout.log" >&2 || true
    exit 1
  fi
  online="$(grep -c "Master has completed initialization" "$log" 2>/dev/null || true)"
  if [[ "${online:-0}" -ge 1 ]] && port_open "$master_port"; then
    break
  fi
  if ((SECONDS > deadline)); then
    echo "hbase: not ready after ${timeout_s}s; last lines:" >&2
    tail -40 "$log" >&2 || true
    exit 1
  fi
  sleep 1
done
echo "Master has completed initialization" >"$dir/ready"
cat >"$envfile" <<ENV
export HBASE_MASTER=127.0.0.1:$master_port
export HBASE_ZK=127.0.0.1:$zk_port
ENV
echo "hbase: ready after ${SECONDS}s" >&2
cat "$envfile"
