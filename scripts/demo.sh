#!/usr/bin/env bash
# Runs the demo: a local 3-member etcd cluster (started and stopped by the demo itself),
# three candidate JVMs, graceful handovers, then the leader is killed with SIGKILL and the
# failover time is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
echo "[leasehold] building (first run downloads dependencies from Maven Central) ..." >&2
mvn -B -q install -DskipTests
cd it-harness
exec mvn -B -q exec:exec -Dexec.executable=java \
  "-Dexec.args=-cp %classpath dev.leasehold.it.demo.Demo"
