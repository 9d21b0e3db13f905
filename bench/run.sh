#!/usr/bin/env bash
# Runs the benchmark: starts its own 3-member etcd cluster on 127.0.0.1, measures Leasehold,
# jetcd's Election and the seed's polling design, and writes bench/results/<date>.md with its
# plots and a CSV of every sample. Flags go to the bench, e.g.
#   bench/run.sh --handover-trials 100 --crash-trials 30 --name my-run
#   bench/run.sh --phases mariadb --name my-mariadb-run   # the MariaDB phases: a private mariadbd,
#                                                          # Leasehold-JDBC vs the GET_LOCK design
#   bench/run.sh --help
# A full run with the defaults takes about 25 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
echo "[bench] building (first run downloads dependencies from Maven Central) ..." >&2
mvn -B -q -pl bench -am install -DskipTests
# exec.args is split by exec-maven-plugin, which honours double quotes but not backslashes
# (printf %q would turn "A,B" into A\,B): quote each flag, and refuse what cannot be quoted.
args=""
for a in "$@"; do
  case "$a" in
    *\"*) echo "[bench] a flag cannot contain a double quote: $a" >&2; exit 2 ;;
  esac
  args+=" \"$a\""
done
cd bench
exec mvn -B -q exec:exec -Dexec.executable=java \
  "-Dexec.workingdir=$(pwd)/.." \
  "-Dexec.args=-Xmx1g -cp %classpath dev.leasehold.bench.BenchMain${args}"
