#!/usr/bin/env bash
# Runs the goodput simulator (virtual time: 4 server algorithms x 5 header styles x 6 loads x
# every compared client) and the real-time check of one scenario against a loopback server, and
# writes benchmarks/results/simulation.{md,csv,svg} and benchmarks/results/realtime.md.
#
#   benchmarks/run-sim.sh                       # everything (a few minutes of CPU, ~30 s real time)
#   benchmarks/run-sim.sh --duration 300        # extra options go to the simulator
#   SKIP_BUILD=1 SKIP_REALTIME=1 benchmarks/run-sim.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -B -q install -pl client-core,okhttp-interceptor -am -DskipTests -Dmaven.javadoc.skip
  mvn -B -q package -pl benchmarks -DskipTests
fi
java -cp benchmarks/target/benchmarks.jar dev.headway.benchmarks.sim.SimulatorMain \
  --out benchmarks/results "$@"
if [[ -z "${SKIP_REALTIME:-}" ]]; then
  java -cp benchmarks/target/benchmarks.jar dev.headway.benchmarks.sim.RealTimeCheck \
    --out benchmarks/results
fi
