package dev.headway.fleet;

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

/**
 * A sliding window counter (the last fixed window's count weighed by how much of it still
 * overlaps the last window's length, plus the current one's), or a fixed window ({@link
 * #fixedWindow}: the last window weighs nothing), that announces the end of its
 * current fixed window as the reset and answers a spent window with a 429, a count of 0 and a
 * {@code Retry-After} of when the next unit is back; and closed-loop callers that send to it
 * through a pacer until the run ends. Virtual time. Counts what the server admitted and refused.
 */
final class SlidingWindowLoop {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock;
  private final long quota;
  private final long windowNanos;
  private final long phaseNanos;
  private final boolean windowGiven;
  private final String style;
  private final long toServerNanos;
  private final long backNanos;
  private final long runNanos;
  /** The last fixed window weighs nothing: a fixed window counter. */
  private boolean fixed;
  /** Each way takes up to 10% longer, drawn from this (requests overtake each other), or null. */
  private java.util.@org.jspecify.annotations.Nullable Random jitter;
  /** The server's partition key ({@code pk}) on every policy and count, or empty. */
  private Optional<String> partitionKey = Optional.empty();
  private long index = Long.MIN_VALUE;
  private long previous;
  private long current;
  /** Requests the server admitted; refused (429). */
  long ok;
  long throttled;

  /**
   * A server of {@code quota} per {@code windowNanos}, the run starting {@code phaseNanos} into
   * a fixed window; its policy says the window if {@code windowGiven}, in header style {@code
   * style}; requests take {@code toServerNanos} to reach it (0: answered as sent) and {@code
   * backNanos} to come back; callers stop at {@code runNanos}.
   */
  SlidingWindowLoop(VirtualClock clock, long quota, long windowNanos, long phaseNanos,
      boolean windowGiven, String style, long toServerNanos, long backNanos, long runNanos) {
    this.clock = clock;
    this.quota = quota;
    this.windowNanos = windowNanos;
    this.phaseNanos = phaseNanos;
    this.windowGiven = windowGiven;
    this.style = style;
    this.toServerNanos = toServerNanos;
    this.backNanos = backNanos;
    this.runNanos = runNanos;
  }

  /** As the constructor, a fixed window counter: the whole quota is back at each reset. */
  static SlidingWindowLoop fixedWindow(VirtualClock clock, long quota, long windowNanos,
      long phaseNanos, String style, long toServerNanos, long backNanos, long runNanos) {
    SlidingWindowLoop loop = new SlidingWindowLoop(clock, quota, windowNanos, phaseNanos, true,
        style, toServerNanos, backNanos, runNanos);
    loop.fixed = true;
    return loop;
  }

  /**
   * Makes each way of every request take up to 10% longer than told, drawn from {@code seed}, as
   * the simulator's round trips do: answers come back in another order than the server counted
   * them.
   */
  SlidingWindowLoop jitter(long seed) {
    jitter = new java.util.Random(seed);
    return this;
  }

  /**
   * Makes the server name its partition key {@code pk} on its policy (as express-rate-limit's
   * {@code draft-8} headers do; the parser gives the count of the same name the same key).
   */
  SlidingWindowLoop partitionKey(String pk) {
    partitionKey = Optional.of(pk);
    return this;
  }

  private long way(long nanos) {
    return jitter == null ? nanos : nanos + (long) (nanos * 0.1 * jitter.nextDouble());
  }

  /** The sliding window counter's answer to a request arriving now. */
  RateLimitSignal handle() {
    long now = clock.read() + phaseNanos;
    long i = Math.floorDiv(now, windowNanos);
    if (i != index) {
      previous = i == index + 1 && !fixed ? current : 0;
      current = 0;
      index = i;
    }
    long start = i * windowNanos;
    double estimate = previous * (1.0 - (double) (now - start) / windowNanos) + current;
    boolean admit = estimate + 1 <= quota + 1e-9;
    long remaining = 0;
    Optional<Duration> retryAfter = Optional.empty();
    if (admit) {
      current++;
      ok++;
      remaining = (long) Math.max(0, Math.floor(quota - estimate - 1 + 1e-9));
    } else {
      throttled++;
      double fraction = previous == 0 ? 1 : 1.0 - (quota - current - 1) / (double) previous;
      long next = Math.max(now, start + (long) Math.ceil(fraction * windowNanos));
      retryAfter = Optional.of(Duration.ofSeconds(
          Math.max(1, (next - now + 999_999_999L) / 1_000_000_000L)));
    }
    long resetSeconds = (start + windowNanos - now + 999_999_999L) / 1_000_000_000L;
    return new RateLimitSignal(admit ? 200 : 429,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            windowGiven ? Optional.of(Duration.ofNanos(windowNanos)) : Optional.empty(),
            partitionKey, style)),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(resetSeconds)),
            partitionKey, style)),
        retryAfter, Optional.empty(), Optional.empty(), List.of(), List.of(style),
        List.of(), !admit);
  }

  /**
   * Starts {@code instances} pacers sharing a new in-memory store (1 ms from each), each with
   * {@code callers} closed-loop callers ({@link #loop}); instance {@code i} jitters with seed
   * {@code i + 1}.
   */
  void fleet(int instances, int callers) {
    fleet(instances, callers, s -> s);
  }

  /** As {@link #fleet(int, int)}, each instance's store wrapped by {@code wrap}. */
  void fleet(int instances, int callers,
      java.util.function.UnaryOperator<dev.headway.store.QuotaStore> wrap) {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    for (int i = 0; i < instances; i++) {
      Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i + 1).store(wrap.apply(store.instance("instance-" + i))).build();
      for (int c = 0; c < callers; c++) {
        loop(pacer);
      }
    }
  }

  /**
   * One closed-loop caller of {@code pacer} (maxWait 30 s): acquires, sends, completes its permit
   * with the answer, again until the run ends; refused, it tries again at the time it was told.
   */
  void loop(Pacer pacer) {
    if (clock.read() >= runNanos) {
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
      if (toServerNanos == 0) {
        RateLimitSignal answer = handle();
        clock.schedule(() -> {
          permit.complete(answer);
          loop(pacer);
        }, Duration.ofNanos(way(backNanos)));
        return;
      }
      clock.schedule(() -> {
        RateLimitSignal answer = handle();
        clock.schedule(() -> {
          permit.complete(answer);
          loop(pacer);
        }, Duration.ofNanos(way(backNanos)));
      }, Duration.ofNanos(way(toServerNanos)));
    });
  }
}
