#!/usr/bin/env bash
# Runs every test: unit tests, the TLA+ model check and the simulation, and the
# integration and chaos tests against real etcd processes that the tests start themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
# Two modules at a time: the model checker (protocol-spec, CPU-bound, one TLC worker) runs beside
# the integration tests (it-tests, mostly waiting on etcd, mariadbd and postgres), which share no
# ports or files. When the model checker is done, cli, bench and the Spring modules, which need
# only the launchers (it-harness), not it-tests' run, take its place beside it-tests. Maven starts
# the modules that become ready in the reactor's order: those three wait for the test kit, so they
# never start ahead of protocol-spec and it-tests (see cli/pom.xml).
exec mvn -B -T 2 verify -Dtlc.workers=1 "$@"
