package dev.headway.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.headway.fuzz.HostileSequence.Choices;
import dev.headway.fuzz.HostileSequence.Step;
import dev.headway.testing.CapturedLogs;
import java.util.List;

/**
 * Fuzzes sequences of responses through one pacer (virtual time): up to 300 steps, each a
 * response of {@link HostileSequence} (new policy names, a rotating {@code pk}, counts and resets
 * out of range, throttling) or a response of {@link ResponseGenerator} (any field the dialects
 * read, hostile values), to one of four origins, with {@code maxPartitions} from 1 to 64, the
 * quotas shared or not through a store whose answers are often garbage
 * ({@link GarbageStore}). After
 * every step the pacer's state is within its bounds ({@link SequenceRun#check}), nothing escapes
 * {@code tryAcquire} or {@code complete}, and no exception was swallowed inside the pacer (its
 * "Headway ignored an exception" WARNING is a finding).
 *
 * <p>Without {@code JAZZER_FUZZ} (every {@code mvn verify}) the target runs once per file of
 * {@code src/test/resources/dev/headway/fuzz/PacerSequenceFuzzTestInputs/responseSequences/}
 * and the empty input. See docs/fuzzing.md for long runs.
 */
class PacerSequenceFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void responseSequences(FuzzedDataProvider data) {
    CapturedLogs.clear();
    SequenceRun run = new SequenceRun(data.consumeInt(1, 64), data.consumeBoolean());
    Choices choices = data::consumeInt;
    int steps = data.consumeInt(1, 300);
    for (int i = 0; i < steps && data.remainingBytes() > 0; i++) {
      Step step = data.consumeInt(0, 3) == 0
          ? new Step(HostileSequence.request(choices), status(data),
              ResponseGenerator.headers(data, 6))
          : HostileSequence.step(i, choices);
      run.send(step);
      run.check("after step " + i + " (" + step + ")");
    }
    List<CapturedLogs.Line> swallowed = CapturedLogs.lines("dev.headway").stream()
        .filter(l -> l.message().startsWith("Headway ignored an exception")).toList();
    if (!swallowed.isEmpty()) {
      throw new AssertionError("the pacer swallowed an exception: " + swallowed.get(0).message(),
          swallowed.get(0).thrown());
    }
  }

  /** A status an HTTP client can hand over (three digits). */
  private static int status(FuzzedDataProvider data) {
    int status = ResponseGenerator.status(data);
    return status >= 100 && status <= 999 ? status : 200;
  }
}
