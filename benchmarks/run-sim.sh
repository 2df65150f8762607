#!/usr/bin/env bash
# Runs the goodput simulator (virtual time: 4 server algorithms x 5 header styles x 7 loads x
# every compared client) and the real-time check of one scenario against a loopback server, and
# writes benchmarks/results/simulation.{md,csv,svg} and benchmarks/results/realtime.md.
#
#   benchmarks/run-sim.sh                        # fixed grid + real-time check
#   benchmarks/run-sim.sh --duration 300         # extra options go to the simulator
#   benchmarks/run-sim.sh --random 300 --seed 2026   # held-out random scenarios (random-2026.*)
#   benchmarks/run-sim.sh --scoped               # servers with several quotas (scoped.*)
#   SKIP_BUILD=1 SKIP_REALTIME=1 benchmarks/run-sim.sh
#
# Builds with the reactor (package, never install: nothing is written to ~/.m2).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -B -q package -pl benchmarks -am -DskipTests -Dmaven.javadoc.skip
fi
java -cp benchmarks/target/benchmarks.jar dev.headway.benchmarks.sim.SimulatorMain \
  --out benchmarks/results "$@"
if [[ -z "${SKIP_REALTIME:-}" && " $* " != *" --random "* && " $* " != *" --scoped "* ]]; then
  java -cp benchmarks/target/benchmarks.jar dev.headway.benchmarks.sim.RealTimeCheck \
    --out benchmarks/results
fi
