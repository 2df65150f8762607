package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression (goodput simulator, 64 callers against a token bucket with full quota headers: two
 * 429s in ten minutes): the line of callers behind a policy paced at its refill rate was longer
 * than {@code maxWait}, so the wait looked like a block longer than {@code maxWait} and the
 * pacer sent a probe to check it, straight into the empty bucket. A line the pacer is pacing
 * through is a queue, not a block: only a hold or a reset further off than {@code maxWait} with
 * nothing coming back before it is probed.
 */
@Timeout(60)
class RefillQueueIsNotALongBlockTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;

  /** A token bucket of {@code quota}, refilled at quota per window; "t" = until full. */
  static final class Bucket {
    final VirtualClock clock;
    final long quota;
    final long windowNanos;
    double tokens;
    long last;
    int admitted;
    int throttled;

    Bucket(VirtualClock clock, long quota, long windowSeconds) {
      this.clock = clock;
      this.quota = quota;
      this.windowNanos = windowSeconds * SECOND;
      this.tokens = quota;
      this.last = clock.read();
    }

    synchronized RateLimitSignal handle() {
      long now = clock.read();
      double perToken = (double) windowNanos / quota;
      tokens = Math.min(quota, tokens + (now - last) / perToken);
      last = now;
      boolean ok = tokens >= 1 - 1e-9;
      if (ok) {
        tokens = Math.max(0, tokens - 1);
        admitted++;
      } else {
        throttled++;
      }
      long reset = (long) Math.ceil((quota - tokens) * perToken);
      long retry = (long) Math.ceil((1 - tokens) * perToken);
      return new RateLimitSignal(ok ? 200 : 429,
          List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
              Optional.of(Duration.ofNanos(windowNanos)), Optional.empty(), "ietf")),
          List.of(new QuotaLimit("default", (long) Math.floor(tokens + 1e-9),
              Optional.of(Duration.ofSeconds((reset + SECOND - 1) / SECOND)), Optional.empty(),
              "ietf")),
          ok ? Optional.empty() : Optional.of(Duration.ofSeconds((retry + SECOND - 1) / SECOND)),
          Optional.empty(), Optional.empty(), List.of(), List.of("ietf"), List.of(), !ok);
    }
  }

  @Test
  void sixtyFourCallersBehindARefillingBucketAreNeverProbedIntoIt() {
    VirtualClock clock = VirtualClock.create();
    clock.advance(Duration.ofMillis(23_700));
    Bucket bucket = new Bucket(clock, 100, 60);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .build();
    AtomicInteger refused = new AtomicInteger();
    for (int i = 0; i < 64; i++) {
      call(pacer, clock, bucket, refused);
    }
    for (int step = 0; step < 60_000; step++) {
      clock.advance(Duration.ofMillis(10));
    }
    // 100 at once, then one per 0.6 s for ten minutes: about 1,100 admitted. Each of the two
    // probes sent past maxWait found the bucket empty.
    assertThat(bucket.throttled).as("429s").isZero();
    assertThat(bucket.admitted).as("admitted").isGreaterThan(1_050);
    assertThat(refused.get()).as("calls refused locally (the line is longer than maxWait)")
        .isPositive();
  }

  @Test
  void aSpentQuotaWhoseResetIsFurtherThanMaxWaitIsStillProbed() throws Exception {
    // The other side of the rule: a fixed window spent until a reset an hour off (nothing comes
    // back before it) is checked by a probe once it has lasted maxWait.
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(dev.headway.Jitter.none()).maxWait(Duration.ofSeconds(2)).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 3600, 0, 3600));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    Permit probe = pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("no probe"));
    assertThat(pacer.tryAcquire(GET)).as("a single probe").isEmpty();
    probe.complete(Signals.limit(200, 10, 3600, 9, 3599));
    pacer.acquire(GET).complete(Signals.limit(200, 10, 3600, 8, 3599));
  }

  private static void call(Pacer pacer, VirtualClock clock, Bucket bucket,
      AtomicInteger refused) {
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        RateLimitedException e = (RateLimitedException) cause;
        refused.incrementAndGet();
        clock.schedule(() -> call(pacer, clock, bucket, refused),
            e.requiredWait().plusMillis(1));
        return;
      }
      clock.schedule(() -> {
        RateLimitSignal answer = bucket.handle();
        clock.schedule(() -> {
          permit.complete(answer);
          call(pacer, clock, bucket, refused);
        }, Duration.ofMillis(25));
      }, Duration.ofMillis(25));
    });
  }
}
