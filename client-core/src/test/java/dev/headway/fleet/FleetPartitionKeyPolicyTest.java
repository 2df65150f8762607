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
 * A server whose first answers name a policy without a partition key ({@code pk}) and whose
 * later answers name a policy of the same name with one, of another quota and window (a gateway
 * that limits anonymous requests by address, 1000 a second, then the signed-in user's by key,
 * 10 per 10 s, both called {@code "default"}): the fleet shares the keyed count with the keyed
 * policy's quota and window.
 * Three instances of four callers, 5 ms each way from the server, the store 1 ms away, two
 * minutes. Virtual time.
 */
@Timeout(60)
class FleetPartitionKeyPolicyTest {
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long SECOND = 1_000_000_000L;
  private static final long RUN_NANOS = 120 * SECOND;
  /** Until then, the requests are anonymous: the address's 1000 a second, no key. */
  private static final long SIGNED_IN_NANOS = SECOND;
  private static final long ANONYMOUS_QUOTA = 1_000;
  private static final long USER_QUOTA = 10;
  private static final long USER_WINDOW_NANOS = 10 * SECOND;

  private final VirtualClock clock = VirtualClock.create();
  private long anonymous;
  private long window = -1;
  private long used;
  private long ok;
  private long throttled;

  private RateLimitSignal handle() {
    long now = clock.read();
    if (now < SIGNED_IN_NANOS) {
      anonymous++;
      ok++;
      return signal(200, ANONYMOUS_QUOTA, 1, ANONYMOUS_QUOTA - anonymous, 1, Optional.empty(),
          Optional.empty());
    }
    long w = now / USER_WINDOW_NANOS;
    if (w != window) {
      window = w;
      used = 0;
    }
    long reset = ((w + 1) * USER_WINDOW_NANOS - now + SECOND - 1) / SECOND;
    boolean admit = used < USER_QUOTA;
    if (admit) {
      used++;
      ok++;
    } else {
      throttled++;
    }
    return signal(admit ? 200 : 429, USER_QUOTA, USER_WINDOW_NANOS / SECOND, USER_QUOTA - used,
        reset, Optional.of("dXNlci1h"),
        admit ? Optional.empty() : Optional.of(Duration.ofSeconds(reset)));
  }

  private static RateLimitSignal signal(int status, long quota, long windowSeconds,
      long remaining, long resetSeconds, Optional<String> pk, Optional<Duration> retryAfter) {
    return new RateLimitSignal(status,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(windowSeconds)), pk, "ietf-structured")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(resetSeconds)),
            pk, "ietf-structured")),
        retryAfter, Optional.empty(), Optional.empty(), List.of(), List.of("ietf-structured"),
        List.of(), status == 429);
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
        }, Duration.ofMillis(5));
      }, Duration.ofMillis(5));
    });
  }

  /**
   * Before, the keyed count went to the store with the anonymous policy's quota and window (the
   * base partition's policy of the same name): once the user's window had reset, the store took
   * the server for one giving 1000 units back a second and lent them (20 429s in the run).
   */
  @Test
  void aKeyedCountTakesItsOwnPolicysQuotaAndWindow() {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    for (int i = 0; i < 3; i++) {
      Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i + 1).store(store.instance("instance-" + i)).build();
      for (int c = 0; c < 4; c++) {
        loop(pacer);
      }
    }
    clock.advance(Duration.ofNanos(RUN_NANOS + 10 * SECOND));
    long signedIn = ok - anonymous;
    assertThat(throttled).as("429s (%d admitted signed in, %d anonymous)", signedIn, anonymous)
        .isZero();
    // 12 windows of the user's touched by the run after sign-in: the server allows 120.
    assertThat(signedIn).as("admitted signed in").isGreaterThanOrEqualTo(110);
  }
}
