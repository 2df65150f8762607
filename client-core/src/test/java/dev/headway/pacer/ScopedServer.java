package dev.headway.pacer;

import dev.headway.HttpFields;
import dev.headway.testing.VirtualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * A fake server with several quotas on one host, each counting only the requests it governs
 * (GitHub's resources, Discord's buckets, an LLM API's per-model limits). A request is admitted
 * only if every quota governing it has room; then each counts it. Responses carry the vendor's
 * headers. Not thread-safe (the virtual clock runs everything on one thread).
 */
final class ScopedServer {
  /** What a request is, as the server sees it. */
  record Call(String method, String path, String model, long tokens) {}

  /** One quota: a fixed window (aligned on time 0) or a token bucket (refilled continuously). */
  static final class Meter {
    final String name;
    final long limit;
    final long windowNanos;
    final boolean bucket;
    final boolean countsTokens;
    final Predicate<Call> governs;
    long used;
    long windowStart;
    double level;
    long levelAt;
    long admitted;
    long spentTokens;
    long throttled;

    Meter(String name, long limit, long windowNanos, boolean bucket, boolean countsTokens,
        Predicate<Call> governs) {
      this.name = name;
      this.limit = limit;
      this.windowNanos = windowNanos;
      this.bucket = bucket;
      this.countsTokens = countsTokens;
      this.governs = governs;
      this.level = limit;
    }

    long cost(Call call) {
      return countsTokens ? call.tokens() : 1;
    }

    void roll(long now) {
      if (bucket) {
        level = Math.min(limit, level + (double) (now - levelAt) * limit / windowNanos);
        levelAt = now;
      } else {
        long start = now - Math.floorMod(now, windowNanos);
        if (start != windowStart) {
          windowStart = start;
          used = 0;
        }
      }
    }

    long remaining() {
      return bucket ? (long) Math.floor(level) : limit - used;
    }

    boolean fits(long cost) {
      return remaining() >= cost;
    }

    void take(long cost) {
      if (bucket) {
        level -= cost;
      } else {
        used += cost;
      }
    }

    /** Nanoseconds until the quota is whole again (bucket) or the window ends. */
    long resetNanos(long now) {
      if (bucket) {
        return (long) ((limit - level) * windowNanos / limit);
      }
      return windowStart + windowNanos - now;
    }
  }

  /** Renders a vendor's headers for an answer. */
  interface Renderer {
    void render(HttpFields.Builder fields, List<Meter> governing, Meter refusedBy, long now,
        long wallNanos);
  }

  final VirtualClock clock;
  final List<Meter> meters;
  final Renderer renderer;
  long answered;
  long throttled;

  ScopedServer(VirtualClock clock, List<Meter> meters, Renderer renderer) {
    this.clock = clock;
    this.meters = meters;
    this.renderer = renderer;
  }

  /** Answers {@code call} at the clock's time: its status and headers. */
  Answer handle(Call call) {
    long now = clock.read();
    List<Meter> governing = new ArrayList<>();
    for (Meter m : meters) {
      if (m.governs.test(call)) {
        m.roll(now);
        governing.add(m);
      }
    }
    Meter refusedBy = null;
    for (Meter m : governing) {
      if (!m.fits(m.cost(call))) {
        refusedBy = m;
        break;
      }
    }
    if (refusedBy == null) {
      for (Meter m : governing) {
        m.take(m.cost(call));
        m.admitted++;
        m.spentTokens += m.cost(call);
      }
    } else {
      refusedBy.throttled++;
      throttled++;
    }
    answered++;
    HttpFields.Builder fields = HttpFields.builder();
    long wall = clock.instant().getEpochSecond() * 1_000_000_000L + clock.instant().getNano();
    renderer.render(fields, governing, refusedBy, now, wall);
    return new Answer(refusedBy == null ? 200 : 429, fields.build());
  }

  Meter meter(String name) {
    return meters.stream().filter(m -> m.name.equals(name)).findFirst().orElseThrow();
  }

  record Answer(int status, HttpFields headers) {}

  // ------------------------------------------------------------------ the three servers

  static final long HOUR = 3_600_000_000_000L;
  static final long MINUTE = 60_000_000_000L;
  static final long SECOND = 1_000_000_000L;

  /** GitHub: core 5,000/h for all but /search/*, search 30/min; both fixed windows. */
  static ScopedServer github(VirtualClock clock) {
    return new ScopedServer(clock, List.of(
        new Meter("core", 5000, HOUR, false, false, c -> !c.path().startsWith("/search/")),
        new Meter("search", 30, MINUTE, false, false, c -> c.path().startsWith("/search/"))),
        (fields, governing, refused, now, wall) -> {
          Meter m = governing.get(0);
          fields.add("x-ratelimit-limit", Long.toString(m.limit));
          fields.add("x-ratelimit-remaining", Long.toString(m.remaining()));
          fields.add("x-ratelimit-used", Long.toString(m.limit - m.remaining()));
          fields.add("x-ratelimit-reset", Long.toString(
              (wall + m.resetNanos(now) + SECOND - 1) / SECOND));
          fields.add("x-ratelimit-resource", m.name);
        });
  }

  static final String CHANNEL = "/channels/829301/messages";
  static final String MEMBERS = "/guilds/559120/members/";

  /** Discord: three buckets (fixed windows) and a global limit never advertised on success. */
  static ScopedServer discord(VirtualClock clock, long globalPerSecond) {
    return new ScopedServer(clock, List.of(
        new Meter("global", globalPerSecond, SECOND, false, false, c -> true),
        new Meter("8a1f", 10, 5 * SECOND, false, false,
            c -> c.method().equals("GET") && c.path().equals(CHANNEL)),
        new Meter("3c07", 5, 5 * SECOND, false, false,
            c -> c.method().equals("POST") && c.path().equals(CHANNEL)),
        new Meter("e52b", 5, 5 * SECOND, false, false,
            c -> c.method().equals("PATCH") && c.path().startsWith(MEMBERS))),
        (fields, governing, refused, now, wall) -> {
          if (refused != null && refused.name.equals("global")) {
            fields.add("X-RateLimit-Global", "true");
            fields.add("X-RateLimit-Scope", "global");
            fields.add("Retry-After", Long.toString(Math.max(1,
                (refused.resetNanos(now) + SECOND - 1) / SECOND)));
            return;
          }
          Meter bucket = governing.get(1);
          long reset = bucket.resetNanos(now);
          fields.add("X-RateLimit-Limit", Long.toString(bucket.limit));
          fields.add("X-RateLimit-Remaining", Long.toString(bucket.remaining()));
          fields.add("X-RateLimit-Reset", seconds(wall + reset));
          fields.add("X-RateLimit-Reset-After", seconds(reset));
          fields.add("X-RateLimit-Bucket", bucket.name);
          if (refused != null) {
            fields.add("X-RateLimit-Scope", "user");
            fields.add("Retry-After", Long.toString(Math.max(1, (reset + SECOND - 1) / SECOND)));
          }
        });
  }

  static final String COMPLETIONS = "/v1/chat/completions";

  /** An LLM API (OpenAI's headers): two models, each with request and token limits. */
  static ScopedServer llm(VirtualClock clock) {
    return new ScopedServer(clock, List.of(
        new Meter("model-a requests", 100, MINUTE, true, false, c -> c.model().equals("model-a")),
        new Meter("model-a tokens", 30_000, MINUTE, true, true, c -> c.model().equals("model-a")),
        new Meter("model-b requests", 30, MINUTE, true, false, c -> c.model().equals("model-b")),
        new Meter("model-b tokens", 6_000, MINUTE, true, true, c -> c.model().equals("model-b"))),
        (fields, governing, refused, now, wall) -> {
          Meter requests = governing.get(0);
          Meter tokens = governing.get(1);
          fields.add("x-ratelimit-limit-requests", Long.toString(requests.limit));
          fields.add("x-ratelimit-limit-tokens", Long.toString(tokens.limit));
          fields.add("x-ratelimit-remaining-requests", Long.toString(requests.remaining()));
          fields.add("x-ratelimit-remaining-tokens", Long.toString(tokens.remaining()));
          fields.add("x-ratelimit-reset-requests", millis(requests.resetNanos(now)));
          fields.add("x-ratelimit-reset-tokens", millis(tokens.resetNanos(now)));
          if (refused != null) {
            fields.add("retry-after-ms", Long.toString(Math.max(1,
                refused.resetNanos(now) / 1_000_000 / refused.limit)));
          }
        });
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.3f", Math.ceil(nanos / 1e6) / 1e3);
  }

  private static String millis(long nanos) {
    return Math.max(0, (nanos + 999_999) / 1_000_000) + "ms";
  }
}
