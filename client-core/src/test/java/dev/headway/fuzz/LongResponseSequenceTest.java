package dev.headway.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.fuzz.HostileSequence.Choices;
import dev.headway.fuzz.SequenceRun.Size;
import dev.headway.testing.Heap;
import java.lang.ref.Reference;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 10<sup>5</sup> responses of a hostile server ({@link HostileSequence}: a new policy name on
 * most responses, 64 at once on some, a {@code pk} that rotates, counts and resets out of range,
 * throttling) through one pacer, in virtual time, and what stays flat: the state (partitions,
 * pk partitions per origin, policies per partition: {@link SequenceRun#check} every 1,000
 * responses, and the largest in the second half no larger than in the first), the heap the pacer
 * retains after a GC (against a baseline taken after the first 10,000 responses), and the work
 * per response in the second half against the first, counted two ways that do not depend on how
 * busy the machine is: the policies the pacing strategy is asked about, and the bytes the thread
 * allocates. Wall time is printed, not asserted (docs/fuzzing.md has the figures).
 */
@Timeout(600)
class LongResponseSequenceTest {
  static final int RESPONSES = 100_000;
  static final int WARM_UP = 10_000;
  static final int CHECK_EVERY = 1_000;
  /** Generous: the bounded state is well under a megabyte; unbounded lists grew 24 MB per 40,000. */
  static final long RETAINED_GROWTH_BOUND = 8L << 20;
  /** Second half against the first: flat work is 1; linear growth per response would be 2+. */
  static final double WORK_RATIO_BOUND = 1.3;

  @Test
  void aHundredThousandHostileResponsesLeaveStateMemoryAndWorkFlat() {
    run(new SequenceRun(64), "", false);
  }

  /**
   * The same sequence with the quotas shared through a store whose answers are often garbage
   * ({@link GarbageStore}: one in four, counts of 10<sup>12</sup> observed in the year 9999,
   * leases valid until then): the same bounds hold, the work counted per step (a step whose
   * request the pacer refuses is work too). Most steps are refused: garbage the fleet adopts
   * (a count of 0 left until a reset capped at a day) holds every request back.
   */
  @Test
  void storeGarbageLeavesStateMemoryAndWorkFlatToo() {
    SequenceRun run = new SequenceRun(64, true);
    run(run, " with store garbage", true);
    assertThat(run.store.garbled).as("garbage answers the store gave").isGreaterThan(1_000);
  }

  /**
   * Runs the sequence through {@code run} and checks the bounds; the work is counted per
   * response sent, or per step when {@code perStep}.
   */
  private static void run(SequenceRun run, String what, boolean perStep) {
    SplittableRandom random = new SplittableRandom(30);
    Choices choices = (min, max) -> random.nextInt(min, max + 1);

    int i = 0;
    for (; i < WARM_UP; i++) {
      run.send(HostileSequence.step(i, choices));
    }
    long baseline = Heap.retained();
    int half = WARM_UP + (RESPONSES - WARM_UP) / 2;
    long[] calls = new long[2];
    long[] bytes = new long[2];
    long[] nanos = new long[2];
    long[] sent = new long[2];
    Size[] largest = {new Size(0, 0), new Size(0, 0)};
    for (int h = 0; h < 2; h++) {
      int end = h == 0 ? half : RESPONSES;
      long callsBefore = run.strategyCalls;
      long completedBefore = run.completed;
      int stepsBefore = i;
      long bytesBefore = AllocationMeter.allocated();
      long start = System.nanoTime();
      for (; i < end; i++) {
        run.send(HostileSequence.step(i, choices));
        if (i % CHECK_EVERY == CHECK_EVERY - 1) {
          Size size = run.check("after " + (i + 1) + " responses");
          largest[h] = new Size(Math.max(largest[h].partitions(), size.partitions()),
              Math.max(largest[h].policies(), size.policies()));
        }
      }
      nanos[h] = System.nanoTime() - start;
      bytes[h] = AllocationMeter.allocated() - bytesBefore;
      calls[h] = run.strategyCalls - callsBefore;
      sent[h] = Math.max(1, perStep ? end - stepsBefore : run.completed - completedBefore);
    }
    long retained = Heap.retained();
    long grown = retained - baseline;
    System.out.printf("[LongResponseSequenceTest%s] %d responses (%d refused): strategy calls per"
            + " %s %.2f then %.2f; bytes allocated per response %d then %d; wall time per"
            + " response %.1f us then %.1f us (not asserted); largest state %s then %s; retained"
            + " heap %.1f MB after %d responses, %.1f MB at the end (grew %.2f MB)%n",
        what, run.completed, run.refused, perStep ? "step" : "response", (double) calls[0] / sent[0], (double) calls[1] / sent[1],
        bytes[0] / sent[0], bytes[1] / sent[1], nanos[0] / 1e3 / sent[0],
        nanos[1] / 1e3 / sent[1], largest[0], largest[1], baseline / 1e6, WARM_UP,
        retained / 1e6, grown / 1e6);

    if (!perStep) {
      assertThat(run.completed).as("responses that reached the pacer")
          .isGreaterThan(RESPONSES * 9L / 10);
    }
    assertThat(largest[1].partitions()).as("partitions held, second half vs first")
        .isLessThanOrEqualTo(largest[0].partitions());
    assertThat(largest[1].policies()).as("policies held, second half vs first")
        .isLessThanOrEqualTo(largest[0].policies());
    assertThat((double) calls[1] / sent[1]).as("policies evaluated per response, second half")
        .isLessThanOrEqualTo(WORK_RATIO_BOUND * calls[0] / sent[0] + 0.5);
    assertThat((double) bytes[1] / sent[1]).as("bytes allocated per response, second half")
        .isLessThanOrEqualTo(WORK_RATIO_BOUND * bytes[0] / sent[0]);
    assertThat(grown).as("heap retained after %d more responses", RESPONSES - WARM_UP)
        .isLessThan(RETAINED_GROWTH_BOUND);
    Reference.reachabilityFence(run);
  }

}
