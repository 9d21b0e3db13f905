#!/usr/bin/env bash
# Runs every test: unit tests, the TLA+ model check and the simulation, and the
# integration and chaos tests against real etcd processes that the tests start themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
exec mvn -B verify "$@"
