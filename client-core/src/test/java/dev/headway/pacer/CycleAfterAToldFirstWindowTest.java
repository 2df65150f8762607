package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cycle after a first window whose end a {@code Retry-After} told: it began at that told end,
 * where the server gave again, so when a {@code Retry-After} tells its other end too, what it
 * admitted over its time is what the server gives, as any other told cycle. Virtual time,
 * several callers, 25 ms each way ({@link ModelServerLoop}). Disabled: a known limit (the
 * learner's first window, docs/pacer.md "Servers that say little"), kept as its reproduction.
 */
@Timeout(60)
class CycleAfterAToldFirstWindowTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;

  /** The seconds at which the server answered 429, in the last run. */
  private final java.util.List<Double> refusedAt = new java.util.ArrayList<>();

  private ModelServerLoop.Counts run(LearnedRateTest.Server server, int callers,
      long seconds, long lateFromSeconds) {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(java.time.Duration.ofMinutes(5)).build();
    long start = clock.read();
    return ModelServerLoop.run(pacer, clock, GET, callers, 25_000_000L,
        start + seconds * SECOND, start + lateFromSeconds * SECOND, now -> {
          RateLimitSignal signal = server.handle(now - start);
          if (signal.status() == 429) {
            refusedAt.add(Math.round((now - start) / 1e8) / 10.0);
          }
          return new ModelServerLoop.Response(signal.status(), permit -> permit.complete(signal));
        });
  }

  /**
   * A token bucket of 20 that gets one back every 154.5 s (simulator, {@code Retry-After} only,
   * seed 2026: 20 per 3,090 s, 6 callers), a whole-second {@code Retry-After} on each 429. The
   * first burst's {@code Retry-After} (155 s, the next token) is taken for a window's end; the
   * first request paced at that window's measure (20 per 155 s) after it is refused, which says
   * the server gives less. The cycle from that told end to the next (one admitted, 154 s) tells
   * the bucket's rate exactly, and the pace stays at it. Before, that cycle measured nothing
   * (it followed the first 429), the pace went back toward the first window's measure after one
   * admitted request and drew one more 429 at about 357 s.
   */
  @Test
  @Disabled("Known limit: the cycle after a told first window measures nothing, and the pace goes "
      + "back toward the first window's dropped measure (one more 429 at about 357 s). Counting "
      + "that cycle when told exactly passes it, but moved fleet rows of the fixed grid (store, "
      + "50 instances: more failed calls): not kept (docs/benchmarks-log.md, s27-silent)")
  void aSlowBucketTakenForAWindowIsPacedAtTheToldCycleAfterItsFirstPaced429() {
    ModelServerLoop.Counts counts = run(new LearnedRateTest.Bucket(20, 154_500, true), 6,
        3_090, 200);
    assertThat(counts.throttledLate()).as("429s after 200 s, all at %s", refusedAt).isZero();
    assertThat(counts.admitted()).as("admitted of the 39 the bucket allows")
        .isGreaterThanOrEqualTo(38);
  }
}
