#!/usr/bin/env bash
# Runs the JMH benchmarks (parsing; Pacer acquire+release against Bucket4j, resilience4j, Guava
# and Failsafe in the same run, on 1, 2 and 4 threads, one partition and separate ones; what the
# adapters add to a call answered without the network, AdapterCostBenchmark, on one thread and
# then on 2 and 8 threads sharing one pacer: more threads than cores), then
# CallOverhead (the CPU time and allocation Headway adds to an OkHttp and a java.net.http call,
# interleaved blocks with a confidence interval), and prints the ratio table of the targets;
# writes benchmarks/results/jmh.json, jmh-calls-2t.json, jmh-calls-8t.json, overhead.json and
# jmh.md.
#
#   benchmarks/run-jmh.sh                 # the short default run (about 12 minutes on 2 cores)
#   benchmarks/run-jmh.sh -f 3 -i 10      # an option given here replaces its default
#   BENCHMARKS=LimiterBenchmark benchmarks/run-jmh.sh   # only some benchmarks (a JMH regex)
#   OVERHEAD="--pairs 60 --block 1000" benchmarks/run-jmh.sh   # CallOverhead options
#   SKIP_OVERHEAD=1 benchmarks/run-jmh.sh # JMH only
#   SKIP_THREADS=1 benchmarks/run-jmh.sh  # no calls on 2 and 8 threads
#   SKIP_BUILD=1 benchmarks/run-jmh.sh    # reuse benchmarks/target/benchmarks.jar
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${SKIP_BUILD:-}" ]]; then
  # The reactor builds what the benchmarks need; nothing is installed into ~/.m2.
  mvn -B -q package -pl benchmarks -am -DskipTests -Dmaven.javadoc.skip
fi
mkdir -p benchmarks/results
# Defaults for the run-length options; an option given on the command line replaces its default
# (JMH itself refuses an option given twice). Five warm-up seconds: on 2 cores the JIT takes 3-4
# seconds to compile Headway's acquire path and the parser, and with two the one-thread rows
# measured the interpreter (500 ns and more instead of about 75).
args=()
for pair in "-f 1" "-wi 5" "-i 5" "-w 1s" "-r 1s"; do
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
  "$@" "${BENCHMARKS:-ParseBenchmark|LimiterBenchmark|AdapterCostBenchmark}"
threaded=()
if [[ -z "${SKIP_THREADS:-}" ]]; then
  # Calls on threads sharing one pacer (one partition): 2 threads, and 8, more than the cores.
  # A lock holder put aside by the scheduler while others spin or park on it (issue 29) makes
  # these rows blow up against the one-thread run; jmh.md compares them.
  for t in 2 8; do
    java -jar benchmarks/target/benchmarks.jar "${args[@]}" -t "$t" \
      -rf json -rff "benchmarks/results/jmh-calls-${t}t.json" "$@" AdapterCostBenchmark
    threaded+=("benchmarks/results/jmh-calls-${t}t.json")
  done
fi
if [[ -z "${SKIP_OVERHEAD:-}" ]]; then
  # shellcheck disable=SC2086
  java -cp benchmarks/target/benchmarks.jar dev.headway.benchmarks.overhead.CallOverhead \
    ${OVERHEAD:-} --out benchmarks/results/overhead.json
fi
java -cp benchmarks/target/benchmarks.jar dev.headway.benchmarks.report.JmhReport \
  benchmarks/results/jmh.json benchmarks/results/jmh.md benchmarks/results/overhead.json \
  ${threaded[@]+"${threaded[@]}"}
