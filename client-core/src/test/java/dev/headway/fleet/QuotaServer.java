package dev.headway.fleet;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A server with one quota of {@code quota} requests per window, windows starting at clock time
 * 0, shared by every client; answers with {@code RateLimit}/{@code RateLimit-Policy} as parsed,
 * past the quota with a 429 (optionally with a {@code Retry-After}). Records who sent what when.
 * Thread-safe.
 */
final class QuotaServer {
  private final VirtualClock clock;
  private final long quota;
  private final long windowNanos;
  private long window = -1;
  private long used;
  private final List<Sent> sent = new ArrayList<>();

  /** One request the server received. */
  record Sent(String client, long atNanos, int status) {}

  QuotaServer(VirtualClock clock, long quota, Duration window) {
    this.clock = clock;
    this.quota = quota;
    this.windowNanos = window.toNanos();
  }

  /** Receives one request from {@code client} now and returns its response's signal. */
  synchronized RateLimitSignal handle(String client) {
    long now = clock.read();
    long w = now / windowNanos;
    if (w != window) {
      window = w;
      used = 0;
    }
    long resetNanos = (w + 1) * windowNanos - now;
    long resetSeconds = (resetNanos + 999_999_999L) / 1_000_000_000L;
    int status = used >= quota ? 429 : 200;
    if (status == 200) {
      used++;
    }
    sent.add(new Sent(client, now, status));
    return signal(status, quota - used, resetSeconds);
  }

  /** Takes {@code units} of the current window, as clients outside the test would. */
  synchronized void spend(long units) {
    long w = clock.read() / windowNanos;
    if (w != window) {
      window = w;
      used = 0;
    }
    used = Math.min(quota, used + units);
  }

  private RateLimitSignal signal(int status, long remaining, long resetSeconds) {
    long windowSeconds = windowNanos / 1_000_000_000L;
    return new RateLimitSignal(status,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(windowSeconds)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining,
            Optional.of(Duration.ofSeconds(resetSeconds)), Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), status == 429);
  }

  synchronized List<Sent> sent() {
    return List.copyOf(sent);
  }

  synchronized long count(int status) {
    return sent.stream().filter(s -> s.status() == status).count();
  }
}
