#!/usr/bin/env bash
# Long fuzzing runs of the signal and structured-field parsers (docs/fuzzing.md): each Jazzer
# fuzz test of client-core in turn, in its own JVM, niced, for a duration (or a number of
# executions). Coverage-guided corpora grow in client-core/.cifuzz-corpus/ (not versioned) and are
# reused by the next run; a finding is written by Jazzer into
# client-core/src/test/resources/dev/headway/fuzz/<Class>Inputs/<method>/crash-<sha1>, where every
# later `mvn verify` runs it as a regression test.
#
#   benchmarks/run-fuzz.sh                  # every target, 5 minutes each
#   benchmarks/run-fuzz.sh 1h               # every target, one hour each
#   benchmarks/run-fuzz.sh '' 100000000     # every target, 10^8 executions each, no time limit
#   TARGETS='SignalParserFuzzTest#generatedResponses=2h StructuredFieldFuzzTest#parseAndRoundTrip'
#     benchmarks/run-fuzz.sh 30m            # some targets; '=duration' overrides the default
#
# Logs: benchmarks/results/tmp/fuzz-<target>.log; a summary line per target is printed and
# appended to benchmarks/results/tmp/fuzz-summary.txt. Exits non-zero if any target found
# something. Builds nothing itself beyond `mvn test` of client-core (offline; never installs).
set -uo pipefail
cd "$(dirname "$0")/.."
duration=${1-5m}
executions=${2-}
targets=${TARGETS:-"SignalParserFuzzTest#generatedResponses SignalParserFuzzTest#httpResponses
  StructuredFieldFuzzTest#parseAndRoundTrip StructuredFieldFuzzTest#generatedValuesRoundTrip
  PacerSequenceFuzzTest#responseSequences"}
out=benchmarks/results/tmp
mkdir -p "$out"
corpus=client-core/.cifuzz-corpus

# The RFC 9651 test vectors (../shared/structured-field-tests, or HEADWAY_SF_TESTS) make a good
# starting corpus for the structured-field target; they are not copied into the repository.
sf_tests=${HEADWAY_SF_TESTS:-}
if [[ -z "$sf_tests" ]]; then
  dir=$PWD
  while [[ "$dir" != / ]]; do
    [[ -d "$dir/shared/structured-field-tests" ]] && sf_tests="$dir/shared/structured-field-tests" && break
    dir=$(dirname "$dir")
  done
fi
if [[ -n "$sf_tests" ]] && command -v python3 >/dev/null; then
  python3 - "$sf_tests" "$corpus/dev.headway.fuzz.StructuredFieldFuzzTest/parseAndRoundTrip" <<'PY'
import glob, hashlib, json, os, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
for path in glob.glob(os.path.join(src, '*.json')):
    for vector in json.load(open(path)):
        raw = ', '.join(vector.get('raw', [])).encode('latin-1', 'replace')
        name = 'sf-' + hashlib.sha1(raw).hexdigest()
        with open(os.path.join(dst, name), 'wb') as f:
            f.write(raw)
PY
fi

# Jazzer's hooks (comparison tracing, which guides the fuzzer through string compares) are off
# for the regression run (client-core/pom.xml, headway.fuzz.hooks) and on here. libFuzzer options
# go through Jazzer's JUnit configuration: longer inputs from the start (the default grows the
# length limit slowly from a few bytes, which starves the generator targets).
libfuzzer="-Djazzer.internal.arg.0=fake_argv0 -Djazzer.internal.arg.1=-max_len=4096"
libfuzzer+=" -Djazzer.internal.arg.2=-len_control=0"

failed=0
for entry in $targets; do
  target=${entry%%=*}
  time=$duration
  [[ "$entry" == *=* ]] && time=${entry#*=}
  log="$out/fuzz-${target//#/.}.log"
  echo "fuzzing $target (duration '${time}', executions '${executions:-unbounded}'), log: $log"
  stamp=$(mktemp)
  env JAZZER_FUZZ=1 JAZZER_MAX_DURATION="$time" ${executions:+JAZZER_MAX_EXECUTIONS=$executions} \
    nice -n "${NICE:-10}" mvn -B -o -pl client-core test \
      -Dtest="$target" -Dsurefire.failIfNoSpecifiedTests=false \
      -Dsurefire.redirectTestOutputToFile=false -Dheadway.fuzz.hooks=true \
      -DargLine="$libfuzzer" >"$log" 2>&1
  status=$?
  done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  runs=$(sed -E 's/^Done ([0-9]+) runs in ([0-9]+) .*/\1/' <<<"$done_line")
  secs=$(sed -E 's/^Done ([0-9]+) runs in ([0-9]+) .*/\2/' <<<"$done_line")
  if [[ -n "$done_line" && "$secs" -gt 0 ]]; then
    rate=$((runs / secs))
  else
    rate=?
  fi
  # A finding is a new crash-<sha1> file in the inputs directories (Jazzer writes one per finding).
  new_crashes=$(find client-core/src/test/resources/dev/headway/fuzz -name 'crash-*' -newer "$stamp")
  rm -f "$stamp"
  findings=$(grep -c . <<<"$new_crashes")
  for crash in $new_crashes; do
    echo "  finding: $crash"
  done
  summary="$(date -u +%FT%TZ) $target: exit $status, ${done_line:-no 'Done' line}, ${rate} exec/s, findings: $findings | ${last}"
  echo "$summary" | tee -a "$out/fuzz-summary.txt"
  [[ $status -ne 0 ]] && failed=1
done
exit $failed
