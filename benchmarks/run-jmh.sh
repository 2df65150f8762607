#!/usr/bin/env bash
# Runs the JMH benchmarks (parsing, Pacer acquire+release against Bucket4j, resilience4j, Guava
# and Failsafe in the same run, an OkHttp loopback call with and without the interceptor) and
# writes benchmarks/results/jmh.json and benchmarks/results/jmh.md (ratios Headway / peer).
#
#   benchmarks/run-jmh.sh                 # the short default run (a few minutes on 2 cores)
#   benchmarks/run-jmh.sh -f 3 -i 10      # an option given here replaces its default
#   BENCHMARKS=LimiterBenchmark benchmarks/run-jmh.sh   # only some benchmarks (a JMH regex)
#   SKIP_BUILD=1 benchmarks/run-jmh.sh    # reuse benchmarks/target/benchmarks.jar
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${SKIP_BUILD:-}" ]]; then
  mvn -B -q install -pl client-core,okhttp-interceptor -am -DskipTests -Dmaven.javadoc.skip
  mvn -B -q package -pl benchmarks -DskipTests
fi
mkdir -p benchmarks/results
# Defaults for the run-length options; an option given on the command line replaces its default
# (JMH itself refuses an option given twice).
args=()
for pair in "-f 1" "-wi 2" "-i 3" "-w 1s" "-r 1s"; do
  option=${pair%% *}
  given=false
  for arg in "$@"; do
    [[ "$arg" == "$option" ]] && given=true
  done
  $given || args+=($pair)
done
java -jar benchmarks/target/benchmarks.jar \
  "${args[@]}" -prof gc \
  -rf json -rff benchmarks/results/jmh.json \
  "$@" "${BENCHMARKS:-ParseBenchmark|LimiterBenchmark|OkHttpCallBenchmark}"
java -cp benchmarks/target/benchmarks.jar dev.headway.benchmarks.report.JmhReport \
  benchmarks/results/jmh.json benchmarks/results/jmh.md
