#!/usr/bin/env bash
# Starts a throwaway single-member etcd on 127.0.0.1 for trying Leasehold, prints its endpoints
# and how to stop it, and runs until Ctrl-C (or SIGTERM), then stops etcd and deletes its data.
#
#   scripts/dev-etcd.sh [--port N]     client port (default 2379, or DEV_ETCD_PORT); the peer
#                                      port is N+1
#
# etcd comes from ETCD_BIN, else `etcd` on PATH (Debian package etcd-server). When it is missing,
# it is installed with apt-get as root, as scripts/ensure-deps.sh does; otherwise the script
# stops and names the package. For trying things only: no TLS, no authentication, one member,
# data in a temporary directory.
set -euo pipefail

port=${DEV_ETCD_PORT:-2379}
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=${2:?"--port needs a number"}; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "[dev-etcd] unknown argument '$1' (known: --port N)" >&2; exit 2 ;;
  esac
done
if ! [[ "$port" =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65534 ]; then
  echo "[dev-etcd] --port must be a number from 1 to 65534, but was '$port'" >&2
  exit 2
fi
peer=$((port + 1))

etcd_bin=${ETCD_BIN:-$(command -v etcd || true)}
if [ -z "$etcd_bin" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[dev-etcd] installing etcd-server" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq etcd-server >/dev/null
    etcd_bin=$(command -v etcd)
  else
    echo "[dev-etcd] etcd is missing: install the Debian package etcd-server" \
      "(sudo apt-get install -y etcd-server) or set ETCD_BIN" >&2
    exit 1
  fi
fi

# A port that answers is someone else's: say so instead of letting etcd fail in its log.
for p in "$port" "$peer"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    echo "[dev-etcd] 127.0.0.1:$p is in use (an etcd already running?); pick other ports with --port N" >&2
    exit 1
  fi
done

dir=$(mktemp -d -t dev-etcd.XXXXXX)
etcd_pid=
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$etcd_pid" ] && kill -0 "$etcd_pid" 2>/dev/null; then
    kill "$etcd_pid" 2>/dev/null || true
    wait "$etcd_pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
  echo "[dev-etcd] stopped; its data is deleted" >&2
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

client="http://127.0.0.1:$port"
"$etcd_bin" --name dev --data-dir "$dir/data" \
  --listen-client-urls "$client" --advertise-client-urls "$client" \
  --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
  --initial-cluster "dev=http://127.0.0.1:$peer" --initial-cluster-state new \
  >"$dir/etcd.log" 2>&1 &
etcd_pid=$!

# Ready when /health says so (bash's /dev/tcp: no curl or etcdctl needed), within 15 s.
healthy() {
  local reply
  reply=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" &&
    printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 && cat <&3) 2>/dev/null) || return 1
  [[ "$reply" == *'"health":"true"'* ]]
}
for _ in $(seq 1 150); do
  if healthy; then
    break
  fi
  if ! kill -0 "$etcd_pid" 2>/dev/null; then
    echo "[dev-etcd] etcd exited at start; its log:" >&2
    tail -n 20 "$dir/etcd.log" >&2
    exit 1
  fi
  sleep 0.1
done
if ! healthy; then
  echo "[dev-etcd] etcd did not become healthy within 15 s; its log:" >&2
  tail -n 20 "$dir/etcd.log" >&2
  exit 1
fi

version=$("$etcd_bin" --version 2>/dev/null | sed -n 's/^etcd Version: //p')
cat <<EOF
[dev-etcd] etcd ${version:-?} is running (pid $etcd_pid), one member, data in $dir
[dev-etcd] endpoints: $client
[dev-etcd]   export LEASEHOLD_ETCD_ENDPOINTS=$client
[dev-etcd] stop it with Ctrl-C here (or: kill $$); that also deletes its data
EOF
wait "$etcd_pid" || true
echo "[dev-etcd] etcd exited by itself; its log's last lines:" >&2
tail -n 20 "$dir/etcd.log" >&2
exit 1
