package dev.headway.benchmarks.sim;

import dev.headway.HttpFields;
import java.time.Instant;
import java.util.List;

/**
 * A Discord-like server: three route buckets (fixed windows) and a global limit over every
 * request, scaled down so that the buckets together can exceed it:
 *
 * <ul>
 *   <li>{@code GET /channels/{id}/messages}: 10 per 5 s, bucket {@code 8a1f}</li>
 *   <li>{@code POST /channels/{id}/messages}: 5 per 5 s, bucket {@code 3c07}</li>
 *   <li>{@code PATCH /guilds/{id}/members/{id}}: 5 per 5 s, bucket {@code e52b}</li>
 *   <li>global: 3 per second</li>
 * </ul>
 *
 * <p>Every answer of a route carries its bucket's {@code X-RateLimit-Limit}, {@code -Remaining},
 * {@code -Reset} (epoch seconds with decimals), {@code -Reset-After} (seconds with decimals) and
 * {@code -Bucket}. A 429 of a bucket adds {@code Retry-After} and {@code X-RateLimit-Scope: user};
 * a 429 of the global limit carries only {@code X-RateLimit-Global: true},
 * {@code X-RateLimit-Scope: global} and {@code Retry-After}, as Discord documents. The global
 * limit is not advertised on successes (Discord does not).
 */
final class DiscordServer extends ScopedServer {
  static final String CHANNEL_MESSAGES = "/channels/829301/messages";
  static final String MEMBERS = "/guilds/559120/members/";

  DiscordServer(long originNanos) {
    super(List.of(
        new Meter("global", Meter.Kind.FIXED_WINDOW, 3, 1_000_000_000L, originNanos, false,
            r -> true),
        new Meter("8a1f", Meter.Kind.FIXED_WINDOW, 10, 5_000_000_000L, originNanos, false,
            r -> r.method().equals("GET") && r.path().equals(CHANNEL_MESSAGES)),
        new Meter("3c07", Meter.Kind.FIXED_WINDOW, 5, 5_000_000_000L, originNanos, false,
            r -> r.method().equals("POST") && r.path().equals(CHANNEL_MESSAGES)),
        new Meter("e52b", Meter.Kind.FIXED_WINDOW, 5, 5_000_000_000L, originNanos, false,
            r -> r.method().equals("PATCH") && r.path().startsWith(MEMBERS))));
  }

  @Override
  void render(HttpFields.Builder fields, SimRequest request, List<Meter> governing,
      Meter refusedBy, long nowNanos, Instant wallNow) {
    if (refusedBy != null && refusedBy.name.equals("global")) {
      fields.add("X-RateLimit-Global", "true");
      fields.add("X-RateLimit-Scope", "global");
      fields.add("Retry-After", Long.toString(Math.max(1,
          ceilSeconds(refusedBy.resetNanos(nowNanos)))));
      return;
    }
    Meter bucket = governing.size() > 1 ? governing.get(1) : null;
    if (bucket == null) {
      return; // a route without a bucket: only the global limit applies, and it is not told
    }
    long reset = bucket.resetNanos(nowNanos);
    long wallNanos = wallNow.getEpochSecond() * 1_000_000_000L + wallNow.getNano();
    fields.add("X-RateLimit-Limit", Long.toString(bucket.limit));
    fields.add("X-RateLimit-Remaining", Long.toString(bucket.remaining(nowNanos)));
    fields.add("X-RateLimit-Reset", decimalSeconds(wallNanos + reset));
    fields.add("X-RateLimit-Reset-After", decimalSeconds(reset));
    fields.add("X-RateLimit-Bucket", bucket.name);
    if (refusedBy != null) {
      fields.add("X-RateLimit-Scope", "user");
      fields.add("Retry-After", Long.toString(Math.max(1, ceilSeconds(reset))));
    }
  }
}
