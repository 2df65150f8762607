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
import dev.headway.store.QuotaStore;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two instances of four callers share a sliding window counter (100 per 60 s, {@code RateLimit}
 * style with the window given, the reset announced the end of the current fixed window, 50 ms to
 * the server and back) through a store, for 10 minutes. Before, every fixed window's reset drew
 * a 429: one instance, whose own count said the window was spent, waited for the reset without
 * calling the store and left its heartbeat; the other, alone, paced on its own, and at the reset
 * both sent for the one unit the sliding window gave back. Virtual time.
 */
@Timeout(120)
class FleetSlidingWindowTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long QUOTA = 100;
  private static final long WINDOW_NANOS = 60_000_000_000L;
  private static final long HALF_RTT_NANOS = 25_000_000L;
  private static final long RUN_NANOS = 600_000_000_000L;
  private static final long PHASE_NANOS = 23_700_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private long index = Long.MIN_VALUE;
  private long previous;
  private long current;
  private long ok;
  private long throttled;

  /** The sliding window counter's answer to a request arriving now. */
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
        List.of(new QuotaPolicy("default", QUOTA, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofNanos(WINDOW_NANOS)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(resetSeconds)),
            Optional.empty(), "ietf")),
        retryAfter, Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
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
      clock.schedule(() -> {
        RateLimitSignal answer = handle();
        clock.schedule(() -> {
          permit.complete(answer);
          loop(pacer);
        }, Duration.ofNanos(HALF_RTT_NANOS));
      }, Duration.ofNanos(HALF_RTT_NANOS));
    });
  }

  @Test
  void twoInstancesDrawNo429AtTheSlidingWindowsResets() {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    for (int i = 0; i < 2; i++) {
      QuotaStore instance = store.instance("instance-" + i);
      Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i + 1).store(instance).build();
      for (int c = 0; c < 4; c++) {
        loop(pacer);
      }
    }
    clock.advance(Duration.ofNanos(RUN_NANOS + 60_000_000_000L));
    // The server allows 100 at first and then about 100 a minute: about 1,090 in 10 minutes.
    assertThat(ok).as("admitted (%d 429s)", throttled).isGreaterThan(1_000);
    assertThat(throttled).as("429s of %d admitted", ok).isLessThanOrEqualTo(2);
  }
}
