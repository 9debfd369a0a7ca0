#!/usr/bin/env bash
# Resolves Apache Avro's Java library (pinned in scripts/ci/java-avro/pom.xml)
# from Maven Central for the test that reads a SIMPLE_AVRO download with it,
# and prints the export line the test reads:
#   export DOWNLOADER_TEST_AVRO_CLASSPATH=...
# Needs Java 11+ and Maven (scripts/hbase/start.sh installs both as root).
# Idempotent: the classpath is resolved again only when the pom changes.
set -euo pipefail
exec 3>&1 1>&2
here="$(cd "$(dirname "$0")/java-avro" && pwd)"
if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
	if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q openjdk-17-jdk-headless maven
	fi
fi
command -v java >/dev/null && command -v mvn >/dev/null || { echo "java-avro: java or mvn not found" >&2; exit 1; }
dir=/tmp/downloader-java-avro
mkdir -p "$dir"
cp_file="$dir/classpath.txt"
if [[ ! -s "$cp_file" || "$here/pom.xml" -nt "$cp_file" ]]; then
	(cd "$here" && mvn -B -q dependency:build-classpath -Dmdep.outputFile="$cp_file")
fi
echo "export DOWNLOADER_TEST_AVRO_CLASSPATH='$(cat "$cp_file")'" >&3
