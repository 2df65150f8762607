package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (goodput simulator, GCRA of 5 per 899 s with a burst of one and full quota headers,
 * 29 callers: a 429 after every unit): a server policy spent until a reset further off than
 * {@code maxWait} is a long block, checked by a single request once it has lasted
 * {@code maxWait}. The block was taken to last as long as the callers refused behind the first
 * were told to wait, so when the reset came and its probe's answer said the policy was spent
 * again, the block seemed to have lasted far longer than {@code maxWait}, and a check went at
 * once, into the 429 the answer had just announced. A policy the server told less than
 * {@code maxWait} ago is not checked: that answer is as fresh as the check's would be.
 */
@Timeout(60)
class BlockJustToldIsNotCheckedTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;

  /**
   * A GCRA with a burst of one: a unit every {@code window / quota}; "r" is the burst left (0
   * after each request), "t" when it is full again, {@code Retry-After} exact (both rounded up
   * to whole seconds).
   */
  static final class Gcra {
    final VirtualClock clock;
    final long quota;
    final long windowNanos;
    final long emissionNanos;
    long tat;
    int admitted;
    int throttled;
    /** 429s to requests that arrived at or after {@link #lateFrom}. */
    int throttledLate;
    long lateFrom = Long.MAX_VALUE;

    Gcra(VirtualClock clock, long quota, long windowSeconds) {
      this.clock = clock;
      this.quota = quota;
      this.windowNanos = windowSeconds * SECOND;
      this.emissionNanos = windowNanos / quota;
      this.tat = clock.read();
    }

    RateLimitSignal handle() {
      long now = clock.read();
      long t = Math.max(tat, now);
      boolean ok = t == now;
      if (ok) {
        tat = t + emissionNanos;
        admitted++;
      } else {
        throttled++;
        if (now >= lateFrom) {
          throttledLate++;
        }
      }
      long reset = (ok ? tat : t) - now;
      return new RateLimitSignal(ok ? 200 : 429,
          List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
              Optional.of(Duration.ofNanos(windowNanos)), Optional.empty(), "ietf")),
          List.of(new QuotaLimit("default", 0,
              Optional.of(Duration.ofSeconds((reset + SECOND - 1) / SECOND)), Optional.empty(),
              "ietf")),
          ok ? Optional.empty() : Optional.of(Duration.ofSeconds((reset + SECOND - 1) / SECOND)),
          Optional.empty(), Optional.empty(), List.of(), List.of("ietf"), List.of(), !ok);
    }
  }

  @Test
  void theProbesAnswerAtTheResetIsNotCheckedAgainAtOnce() {
    VirtualClock clock = VirtualClock.create();
    clock.advance(Duration.ofMillis(7_300));
    Gcra server = new Gcra(clock, 5, 899);
    // Default maxWait (30 s): a unit every 179.8 s is a long block after every request.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .build();
    for (int i = 0; i < 29; i++) {
      call(pacer, clock, server);
    }
    // The first contact and the first reset may cost a 429 each (two probes into a burst of
    // one); from the second reset on, the server is counting as it says.
    server.lateFrom = clock.read() + 300 * SECOND;
    for (int step = 0; step < 1_200; step++) {
      clock.advance(Duration.ofSeconds(1));
    }
    // A unit every 179.8 s for 20 minutes: 7 admitted. Before, the answer at each reset was
    // followed at once by a check into the spent burst: 429s at 363 s, 548 s, 739 s, ...
    assertThat(server.admitted).as("admitted").isGreaterThanOrEqualTo(6);
    assertThat(server.throttledLate).as("429s after the first reset").isZero();
  }

  private static void call(Pacer pacer, VirtualClock clock, Gcra server) {
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        RateLimitedException e = (RateLimitedException) cause;
        clock.schedule(() -> call(pacer, clock, server), e.requiredWait().plusMillis(1));
        return;
      }
      clock.schedule(() -> {
        RateLimitSignal answer = server.handle();
        clock.schedule(() -> {
          permit.complete(answer);
          call(pacer, clock, server);
        }, Duration.ofMillis(74));
      }, Duration.ofMillis(74));
    });
  }
}
