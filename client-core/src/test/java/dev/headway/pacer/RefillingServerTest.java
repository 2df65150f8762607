package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * Regressions from the goodput simulator (sliding window ~57% goodput, token bucket 95-98%):
 * the pacer read "t" as "nothing comes back until t" and waited for the whole quota, while these
 * servers give units back continuously. Both servers below advertise {@code q=100;w=60}, answer
 * after 25 ms each way, and send whole-second {@code Retry-After} on a 429. One caller sends
 * back to back for three minutes; a fixed window must keep its exact behaviour.
 */
class RefillingServerTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;
  static final long QUOTA = 100;
  static final long WINDOW = 60 * SECOND;

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5).build();
  }

  /** What a server answered, in the order sent. */
  record Outcome(int admitted, int throttled) {}

  /** One caller, back to back, for {@code seconds}: acquire, 25 ms out, server, 25 ms back. */
  private Outcome run(Pacer pacer, LongFunction<RateLimitSignal> server, long seconds) {
    int admitted = 0;
    int throttled = 0;
    long end = seconds * SECOND;
    while (clock.read() < end) {
      Optional<Permit> permit = pacer.tryAcquire(GET);
      if (permit.isEmpty()) {
        clock.advance(Duration.ofMillis(10));
        continue;
      }
      clock.advance(Duration.ofMillis(25));
      RateLimitSignal signal = server.apply(clock.read());
      if (signal.status() == 429) {
        throttled++;
      } else {
        admitted++;
      }
      clock.advance(Duration.ofMillis(25));
      permit.get().complete(signal);
    }
    return new Outcome(admitted, throttled);
  }

  private static RateLimitSignal answer(boolean ok, long remaining, long resetNanos,
      long retryNanos) {
    long reset = (resetNanos + SECOND - 1) / SECOND;
    Optional<Duration> retryAfter = ok ? Optional.empty()
        : Optional.of(Duration.ofSeconds((retryNanos + SECOND - 1) / SECOND));
    return new RateLimitSignal(ok ? 200 : 429,
        List.of(new QuotaPolicy("default", QUOTA, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofNanos(WINDOW)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(reset)),
            Optional.empty(), "ietf")),
        retryAfter, Optional.empty(), Optional.empty(), List.of(), List.of("ietf"), List.of(),
        !ok);
  }

  /** A token bucket of 100, one token back every 0.6 s; "t" = until full. */
  static final class TokenBucket implements LongFunction<RateLimitSignal> {
    double tokens = QUOTA;
    long last;

    @Override
    public RateLimitSignal apply(long now) {
      double perToken = (double) WINDOW / QUOTA;
      tokens = Math.min(QUOTA, tokens + (now - last) / perToken);
      last = now;
      boolean ok = tokens >= 1;
      if (ok) {
        tokens -= 1;
      }
      return answer(ok, (long) Math.floor(tokens), (long) ((QUOTA - tokens) * perToken),
          (long) Math.ceil((1 - tokens) * perToken));
    }
  }

  /** A sliding-window counter (Cloudflare style); "t" = end of the current fixed window. */
  static final class SlidingWindow implements LongFunction<RateLimitSignal> {
    long index;
    long previous;
    long current;

    @Override
    public RateLimitSignal apply(long now) {
      long i = now / WINDOW;
      if (i != index) {
        previous = i == index + 1 ? current : 0;
        current = 0;
        index = i;
      }
      double weight = 1.0 - (double) (now - i * WINDOW) / WINDOW;
      double estimate = previous * weight + current;
      long reset = (i + 1) * WINDOW - now;
      if (estimate + 1 <= QUOTA) {
        current++;
        return answer(true, (long) Math.floor(QUOTA - estimate - 1), reset, 0);
      }
      // Solve previous * weight(t) + current + 1 <= QUOTA for t (within this window).
      double fraction = previous == 0 ? 1 : 1.0 - (QUOTA - current - 1) / (double) previous;
      long retry = Math.max(1, i * WINDOW + (long) Math.ceil(fraction * WINDOW) - now);
      return answer(false, 0, reset, Math.min(retry, reset));
    }
  }

  @Test
  void aTokenBucketIsPacedAtItsRefillRateNotWaitedOutToFull() {
    Outcome outcome = run(pacer(), new TokenBucket(), 180);
    // The bucket allows 100 at once and one per 0.6 s: 400 in three minutes. Waiting for "t"
    // (until full) after each burst got about 100 per minute plus what refilled in the burst.
    assertThat(outcome.admitted()).as("admitted").isGreaterThanOrEqualTo(390);
    assertThat(outcome.throttled()).as("429s").isLessThanOrEqualTo(1);
  }

  @Test
  void aSlidingWindowIsPacedAtItsRefillRateNotWaitedOutToTheFixedReset() {
    Outcome outcome = run(pacer(), new SlidingWindow(), 180);
    // At most 100 in any 60 s, so about 300 in three minutes. Waiting for "t" (the end of the
    // fixed window, when the sliding count is still full) got about 57% of that.
    assertThat(outcome.admitted()).as("admitted").isGreaterThanOrEqualTo(290);
    assertThat(outcome.throttled()).as("429s").isLessThanOrEqualTo(2);
  }

  @Test
  void aFixedWindowStillSpendsExactlyItsQuotaPerWindowAndWaitsForTheReset() {
    FakeServer server = new FakeServer(clock, QUOTA, 60);
    Outcome outcome = run(pacer(), now -> server.handle(), 180);
    assertThat(outcome.throttled()).as("429s").isZero();
    for (long w = 0; w < 3; w++) {
      assertThat(server.sentInWindow(w)).as("sent in window %d", w).isEqualTo(QUOTA);
    }
  }

  @Test
  void a429WhilePacedAtTheRefillRatePacesALittleSlowerFromThen() {
    Pacer pacer = pacer();
    // A unit back after 1 s while the reset is 50 s away: the server refills continuously.
    pacer.tryAcquire(GET).orElseThrow().complete(answer(false, 0, 50 * SECOND, SECOND));
    clock.advance(Duration.ofSeconds(1));
    // Paced at exactly 0.6 s per unit and still refused (a sliding window whose previous window
    // was short): 1/64 slower from now on.
    pacer.tryAcquire(GET).orElseThrow().complete(answer(false, 0, 49 * SECOND, SECOND));
    clock.advance(Duration.ofSeconds(1));
    pacer.tryAcquire(GET).orElseThrow().complete(answer(true, 0, 48 * SECOND, 0));
    clock.advance(Duration.ofMillis(605));
    assertThat(pacer.tryAcquire(GET)).as("0.605 s after the last unit").isEmpty();
    clock.advance(Duration.ofMillis(5));
    assertThat(pacer.tryAcquire(GET)).as("0.610 s after the last unit").isPresent();
  }

  @Test
  void countsOfRequestsSentAtTheSameInstantArrivingOutOfOrderAreNotARefill() {
    // Regression (jdk adapter, SharedLastUnitsTest): the clock stood still, three callers took
    // the last three units at one instant; the server counted the third first, and the counts
    // came back 1, then 2 (the third, committed later). The "2" looked like a count taken after
    // the "1" that went up: a refill, and the pacer then paced at the refill rate.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .strategy(PacingStrategy.useAllThenWait()).build();
    pacer.tryAcquire(GET).orElseThrow().complete(Signals.limit(200, QUOTA, 60, 3, 60));
    Permit a = pacer.tryAcquire(GET).orElseThrow();
    Permit b = pacer.tryAcquire(GET).orElseThrow();
    Permit c = pacer.tryAcquire(GET).orElseThrow();
    a.complete(Signals.limit(200, QUOTA, 60, 1, 60));
    c.complete(Signals.limit(200, QUOTA, 60, 2, 60));
    b.complete(Signals.limit(200, QUOTA, 60, 0, 60));
    clock.advance(Duration.ofSeconds(1));
    assertThat(pacer.tryAcquire(GET)).as("the smallest count of the instant, 0, holds")
        .isEmpty();
    clock.advance(Duration.ofSeconds(5));
    assertThat(pacer.tryAcquire(GET)).as("r=0, 54 s before the reset of a fixed window")
        .isEmpty();
  }

  @Test
  void twoInstancesSharingATokenBucketBackOffFromTheRefillRateTheyWouldEachTake() {
    // Each instance paced at the whole refill rate sends twice what the bucket gives: every
    // 429 while paced doubles the interval, successes shorten it again slowly.
    List<Pacer> instances = List.of(pacer(), pacer());
    TokenBucket server = new TokenBucket();
    int admitted = 0;
    int throttled = 0;
    while (clock.read() < 180 * SECOND) {
      for (Pacer pacer : instances) {
        Optional<Permit> permit = pacer.tryAcquire(GET);
        if (permit.isPresent()) {
          RateLimitSignal signal = server.apply(clock.read());
          if (signal.status() == 429) {
            throttled++;
          } else {
            admitted++;
          }
          permit.get().complete(signal);
        }
      }
      clock.advance(Duration.ofMillis(10));
    }
    assertThat(admitted).as("admitted").isGreaterThanOrEqualTo(380);
    assertThat(throttled).as("429s").isLessThanOrEqualTo(admitted / 10);
  }

  @Test
  void requestsSentBeforeASlowdownDoNotSlowItDownAgain() {
    // Regression (simulator, GCRA with a declared bucket, 64 callers: 99.5% -> 37% goodput):
    // every 429 of one overshoot doubled the interval, up to 16 times slower.
    Pacer pacer = pacer();
    pacer.tryAcquire(GET).orElseThrow().complete(answer(false, 0, 50 * SECOND, SECOND));
    clock.advance(Duration.ofSeconds(1));
    Permit first = pacer.tryAcquire(GET).orElseThrow();
    clock.advance(Duration.ofMillis(200));
    Permit second = pacer.tryAcquire(GET).orElseThrow();
    clock.advance(Duration.ofMillis(50));
    first.complete(answer(false, 0, 49 * SECOND, SECOND));
    second.complete(answer(false, 0, 49 * SECOND, SECOND));
    clock.advance(Duration.ofSeconds(1));
    pacer.tryAcquire(GET).orElseThrow().complete(answer(true, 0, 48 * SECOND, 0));
    clock.advance(Duration.ofMillis(610));
    assertThat(pacer.tryAcquire(GET)).as("0.610 s after the last unit (1/64 slower)")
        .isPresent();
  }
}
