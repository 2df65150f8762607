package dev.headway.benchmarks.sim;

import dev.headway.HttpFields;
import java.time.Instant;
import java.util.List;

/**
 * A GitHub-like REST server: resource {@code core} (5,000 requests per hour) for every request
 * but {@code /search/*}, which counts against {@code search} (30 per minute); both fixed windows.
 * Every response carries the governing resource's {@code x-ratelimit-limit}, {@code -remaining},
 * {@code -used}, {@code -reset} (epoch seconds) and {@code x-ratelimit-resource}, as GitHub
 * documents them. A request over a primary limit gets 429 with {@code remaining: 0} and no
 * {@code retry-after} (GitHub says to wait until the reset).
 */
final class GitHubServer extends ScopedServer {
  static final long CORE = 5000;
  static final long SEARCH = 30;

  GitHubServer(long originNanos) {
    super(List.of(
        new Meter("core", Meter.Kind.FIXED_WINDOW, CORE, 3_600_000_000_000L, originNanos, false,
            r -> !isSearch(r)),
        new Meter("search", Meter.Kind.FIXED_WINDOW, SEARCH, 60_000_000_000L, originNanos,
            false, GitHubServer::isSearch)));
  }

  static boolean isSearch(SimRequest request) {
    return request.path().startsWith("/search/");
  }

  @Override
  void render(HttpFields.Builder fields, SimRequest request, List<Meter> governing,
      Meter refusedBy, long nowNanos, Instant wallNow) {
    Meter m = governing.get(0);
    long remaining = m.remaining(nowNanos);
    fields.add("x-ratelimit-limit", Long.toString(m.limit));
    fields.add("x-ratelimit-remaining", Long.toString(remaining));
    fields.add("x-ratelimit-used", Long.toString(m.limit - remaining));
    fields.add("x-ratelimit-reset", Long.toString(epochSecondsAfter(wallNow,
        m.resetNanos(nowNanos))));
    fields.add("x-ratelimit-resource", m.name);
  }
}
