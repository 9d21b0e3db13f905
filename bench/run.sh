#!/usr/bin/env bash
# Runs the benchmark: starts its own 3-member etcd cluster on 127.0.0.1, measures Leasehold,
# jetcd's Election and the seed's polling design, and writes bench/results/<date>.md with its
# plots and a CSV of every sample (the MariaDB and PostgreSQL phases start their own servers). Flags go to the bench, e.g.
#   bench/run.sh --handover-trials 100 --crash-trials 30 --name my-run
#   bench/run.sh --phases mariadb --name my-mariadb-run   # the MariaDB phases: a private mariadbd,
#                                                          # Leasehold-JDBC vs the GET_LOCK design
#   bench/run.sh --phases postgres --name my-pg-run        # the PostgreSQL phases: a private postgres and
#                                                          # PgBouncer, the floor and the two anchors
#   bench/run.sh --help
# A full run with the defaults takes about 25 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
echo "[bench] building (first run downloads dependencies from Maven Central) ..." >&2
# Package in the reactor and run from its jars: `mvn install` would overwrite the artifacts
# other checkouts of this project keep in ~/.m2.
nice -n 19 mvn -B -q -pl bench -am package -DskipTests dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt
cp="bench/target/leasehold-bench-0.1.0-SNAPSHOT.jar:$(cat bench/target/classpath.txt)"
exec java -Xmx1g -cp "$cp" dev.leasehold.bench.BenchMain "$@"
