package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An instance alone with its store does as well as without one against a sliding window counter
 * that announces the end of its current fixed window as the reset ({@code X-RateLimit} style, no
 * window given) and answers a spent window with a 429, a count of 0 and a {@code Retry-After} of
 * when the next unit is back: 380 per 90 s, one caller, 17 ms to the server, 15 minutes (the
 * simulator's seed 7313, scenario 29). Before, the instance found its own spent count in the
 * store and waited for that reset every window, where without the store it probed after the
 * {@code Retry-After} and went on: 2,257 admitted against 4,055. Virtual time.
 */
@Timeout(120)
class FleetLoneInstanceTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long QUOTA = 380;
  private static final long WINDOW_NANOS = 90_000_000_000L;
  private static final long RTT_NANOS = 17_000_000L;
  private static final long RUN_NANOS = 900_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private static final long PHASE_NANOS = 62_466_000_000L;
  private long index = Long.MIN_VALUE;
  private long previous;
  private long current;
  private long ok;
  private long throttled;

  /**
   * A sliding window counter (the last fixed window's count weighed by how much of it still
   * overlaps the last window's length, plus the current one's), the run starting 62.466 s into a
   * fixed window; the reset announced is the current fixed window's end.
   */
  private RateLimitSignal handle() {
    long now = clock.read() + PHASE_NANOS;
    long i = Math.floorDiv(now, WINDOW_NANOS);
    if (i != index) {
      previous = i == index + 1 ? current : 0;
      current = 0;
      index = i;
    }
    long start = i * WINDOW_NANOS;
    double estimate = previous * (1.0 - (double) (now - start) / WINDOW_NANOS) + current;
    boolean admit = estimate + 1 <= QUOTA + 1e-9;
    long remaining = 0;
    Optional<Duration> retryAfter = Optional.empty();
    if (admit) {
      current++;
      ok++;
      remaining = (long) Math.max(0, Math.floor(QUOTA - estimate - 1 + 1e-9));
    } else {
      throttled++;
      double fraction = previous == 0 ? 1 : 1.0 - (QUOTA - current - 1) / (double) previous;
      long next = Math.max(now, start + (long) Math.ceil(fraction * WINDOW_NANOS));
      retryAfter = Optional.of(Duration.ofSeconds(
          Math.max(1, (next - now + 999_999_999L) / 1_000_000_000L)));
    }
    long resetSeconds = (start + WINDOW_NANOS - now + 999_999_999L) / 1_000_000_000L;
    return new RateLimitSignal(admit ? 200 : 429,
        List.of(new QuotaPolicy("default", QUOTA, QuotaUnit.REQUESTS, Optional.empty(),
            Optional.empty(), "x-ratelimit")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(resetSeconds)),
            Optional.empty(), "x-ratelimit")),
        retryAfter, Optional.empty(), Optional.empty(), List.of(), List.of("x-ratelimit"),
        List.of(), !admit);
  }

  private void loop(Pacer pacer) {
    if (clock.read() >= RUN_NANOS) {
      return;
    }
    pacer.acquireAsync(GET, Duration.ofSeconds(30)).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error.getCause() != null ? error.getCause() : error;
        long wait = cause instanceof RateLimitedException r
            ? Math.max(1_000_000, Duration.between(clock.instant(), r.retryAt()).toNanos())
            : 1_000_000;
        clock.schedule(() -> loop(pacer), Duration.ofNanos(wait));
        return;
      }
      RateLimitSignal answer = handle();
      clock.schedule(() -> {
        permit.complete(answer);
        loop(pacer);
      }, Duration.ofNanos(RTT_NANOS));
    });
  }

  private long run(boolean shared) {
    Pacer.Builder b = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitterSeed(1);
    if (shared) {
      b.store(InMemoryQuotaStore.builder().clock(clock).roundTrip(Duration.ofMillis(1), clock)
          .build().instance("alone"));
    }
    Pacer pacer = b.build();
    loop(pacer);
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    return ok;
  }

  @Test
  void aLoneInstanceIsNotHeldUntilTheResetByTheSpentCountItsOwnResponseCarried() {
    FleetLoneInstanceTest plain = new FleetLoneInstanceTest();
    long without = plain.run(false);
    long with = run(true);
    assertThat(without).as("the server allows about 4,000 in 15 minutes").isGreaterThan(3_900);
    assertThat(with).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        throttled, without, plain.throttled).isGreaterThanOrEqualTo(without * 98 / 100);
    assertThat(throttled).isLessThanOrEqualTo(plain.throttled + 2);
  }
}
