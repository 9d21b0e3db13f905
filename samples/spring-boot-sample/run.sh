#!/usr/bin/env bash
# Runs the Spring Boot sample: INSTANCES (default 2) instances of one Boot application on
# ports 8080, 8081, ... whose @Scheduled @LeaderOnly job runs on the leader only.
#
#   ./samples/spring-boot-sample/run.sh                  # etcd from LEASEHOLD_ETCD_ENDPOINTS,
#                                                        # else 127.0.0.1:2379, else a throwaway one
#   INSTANCES=3 ./samples/spring-boot-sample/run.sh
#
# It says which instance leads ("[sample] leader: sample-0, pid ..., port 8080"), again at each
# change; each instance also logs "sample-0 leads now (fencing token N)" or "sample-1 follows:
# sample-0 leads (fencing token N)". kill -9 the leader's pid and watch the other instance take
# the job over within the TTL (5 s). Ctrl-C stops all.
set -euo pipefail
cd "$(dirname "$0")/../.."
INSTANCES="${INSTANCES:-2}"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ -n "${ETCD_DIR:-}" ]] && rm -rf "$ETCD_DIR"
}
trap cleanup EXIT INT TERM

echo "[sample] building (mvn package, tests skipped; nothing is installed into ~/.m2)"
nice -n 19 mvn -B -q -pl samples/spring-boot-sample -am package -DskipTests \
  -Dmaven.javadoc.skip=true -Dmaven.source.skip=true
JAR=$(ls samples/spring-boot-sample/target/leasehold-spring-boot-sample-*.jar | grep -v original | head -1)

if [[ -z "${LEASEHOLD_ETCD_ENDPOINTS:-}" ]]; then
  if curl -sf -m 1 http://127.0.0.1:2379/health >/dev/null 2>&1; then
    export LEASEHOLD_ETCD_ENDPOINTS=http://127.0.0.1:2379
  else
    command -v "${ETCD_BIN:-etcd}" >/dev/null || { echo "[sample] no etcd: install etcd-server or set LEASEHOLD_ETCD_ENDPOINTS" >&2; exit 1; }
    ETCD_DIR=$(mktemp -d)
    "${ETCD_BIN:-etcd}" --data-dir "$ETCD_DIR/data" --listen-client-urls http://127.0.0.1:23790 \
      --advertise-client-urls http://127.0.0.1:23790 --listen-peer-urls http://127.0.0.1:23800 \
      >"$ETCD_DIR/etcd.log" 2>&1 &
    pids+=($!)
    export LEASEHOLD_ETCD_ENDPOINTS=http://127.0.0.1:23790
    for _ in $(seq 50); do curl -sf -m 1 "$LEASEHOLD_ETCD_ENDPOINTS/health" >/dev/null 2>&1 && break; sleep 0.2; done
    echo "[sample] started a throwaway etcd at $LEASEHOLD_ETCD_ENDPOINTS (log $ETCD_DIR/etcd.log)"
  fi
fi

instances=()
for i in $(seq 0 $((INSTANCES - 1))); do
  PORT=$((8080 + i)) java -jar "$JAR" --leasehold.candidate-id="sample-$i" &
  pids+=($!)
  instances+=($!)
  echo "[sample] sample-$i: pid $!, http://127.0.0.1:$((8080 + i))/actuator/health/leasehold"
done

# Which instance leads: the one whose health says MASTER. Printed at each change, until every
# instance has exited.
last=""
while :; do
  leader="none" alive=0
  for i in "${!instances[@]}"; do
    kill -0 "${instances[$i]}" 2>/dev/null || continue
    alive=1
    if curl -sf -m 1 "http://127.0.0.1:$((8080 + i))/actuator/health/leasehold" 2>/dev/null \
        | grep -q '"state":"MASTER"'; then
      leader="sample-$i, pid ${instances[$i]}, port $((8080 + i))"
    fi
  done
  [[ $alive == 1 ]] || break
  if [[ "$leader" != "$last" ]]; then
    echo "[sample] leader: $leader"
    last="$leader"
  fi
  sleep 1
done
wait
