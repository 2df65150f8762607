package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A told cycle that admitted only its reopening: the request at the end a {@code Retry-After}
 * told was admitted, and the first request paced after it refused. That pace was never admitted,
 * so it is no ceiling for the learned pace to climb back to after the cut. Virtual time
 * ({@link ModelServerLoop}).
 */
@Timeout(60)
class PaceNeverAdmittedIsNoCeilingTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;

  /** The seconds at which the server answered 429, in the last run. */
  private final List<Double> refusedAt = new ArrayList<>();

  private ModelServerLoop.Counts run(LearnedRateTest.Server server, int callers,
      long oneWayMillis, long seconds) {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    long start = clock.read();
    return ModelServerLoop.run(pacer, clock, GET, callers, oneWayMillis * 1_000_000L,
        start + seconds * SECOND, start, now -> {
          RateLimitSignal signal = server.handle(now - start);
          if (signal.status() == 429) {
            refusedAt.add(Math.round((now - start) / 1e8) / 10.0);
          }
          return new ModelServerLoop.Response(signal.status(), permit -> permit.complete(signal));
        });
  }

  /**
   * A token bucket of 14 that gets one back every 8.857 s (simulator, {@code Retry-After} only,
   * seed 2026: 14 per 124 s, one caller, 325 ms round trip), a whole-second {@code Retry-After}
   * on each 429, for 1,240 s. After the first burst the pace is one request per hold, and each
   * cut whose cycle admitted only the request at the told end went back, from one admitted
   * request on, toward the pace that had drawn the 429 before it, and was refused again: seven
   * 429s (4.7, 10.7, 22.5, 32.6, 62.1, 159.1 and 1,160.2 s), six of them in the first 200 s.
   * Climbing from the cut instead: five (4.7, 10.7, 35.0, 265.5 and 1,009.6 s).
   */
  @Test
  void aBucketsCutAfterItsReopeningAloneIsNotUndoneByTheQuickReturn() {
    ModelServerLoop.Counts counts = run(new LearnedRateTest.Bucket(14, 8_857, true), 1, 162,
        1_240);
    assertThat(counts.throttled()).as("429s, at these seconds: %s", refusedAt)
        .isLessThanOrEqualTo(5);
    assertThat(counts.admitted()).as("admitted of the 154 the bucket allows")
        .isGreaterThanOrEqualTo(145);
  }
}
