package dev.headway.interop;

/**
 * The real rate limiters the suite starts, each configured to allow {@code limit} requests per
 * {@code window} (the token buckets: a burst of {@code limit}, refilled at {@code limit} per
 * {@code window}).
 */
enum Limiter {
  EXPRESS_LEGACY("express-legacy", Runtime.NODE, Model.FIXED_WINDOW, Family.ADVERTISES,
      "X-RateLimit-Limit/-Remaining/-Reset (epoch s); Retry-After on 429"),
  EXPRESS_DRAFT7("express-draft7", Runtime.NODE, Model.FIXED_WINDOW, Family.ADVERTISES,
      "RateLimit: limit, remaining, reset + RateLimit-Policy (draft-7); Retry-After on 429"),
  EXPRESS_DRAFT8("express-draft8", Runtime.NODE, Model.FIXED_WINDOW, Family.ADVERTISES,
      "RateLimit: \"name\";r;t + RateLimit-Policy: \"name\";q;w;pk (draft-8); Retry-After on 429"),
  FASTIFY("fastify", Runtime.NODE, Model.FIXED_WINDOW, Family.ADVERTISES,
      "x-ratelimit-limit/-remaining/-reset (delta s); retry-after on 429"),
  KOA("koa", Runtime.NODE, Model.FIXED_WINDOW, Family.ADVERTISES,
      "X-RateLimit-Limit/-Remaining/-Reset (epoch s, fractional); Retry-After on 429"),
  FASTIFY_RETRY_AFTER_ONLY("fastify-retry-after-only", Runtime.NODE, Model.FIXED_WINDOW,
      Family.HALF_SILENT, "only retry-after, on the 429"),
  HAPI("hapi", Runtime.NODE, Model.FIXED_WINDOW, Family.HALF_SILENT,
      "X-RateLimit-UserLimit/-UserRemaining/-UserReset (epoch ms); no Retry-After"),
  NESTJS("nestjs", Runtime.NODE, Model.FIXED_WINDOW, Family.HALF_SILENT,
      "X-RateLimit-Limit/-Remaining/-Reset (delta s to the tracker's expiry) on 200s; only"
          + " Retry-After on 429"),
  FLASK_MOVING("flask-moving", Runtime.PYTHON, Model.MOVING_WINDOW, Family.HALF_SILENT,
      "X-RateLimit-Limit/-Remaining/-Reset (epoch s) + Retry-After on every response"),
  FLASK_MOVING_COST2("flask-moving-cost2", Runtime.PYTHON, Model.MOVING_WINDOW,
      Family.HALF_SILENT, "as flask-moving; each request costs 2 (remaining drops by 2)"),
  EXPRESS_THROTTLE("express-throttle", Runtime.NODE, Model.TOKEN_BUCKET, Family.SILENT,
      "nothing: a bare 429"),
  NGINX("nginx", Runtime.NGINX, Model.TOKEN_BUCKET, Family.SILENT,
      "nothing: 429 with an HTML page (limit_req, burst nodelay)"),
  SPRING_CLOUD_GATEWAY("spring-cloud-gateway", Runtime.JAVA, Model.TOKEN_BUCKET,
      Family.HALF_SILENT, "X-RateLimit-Remaining/-Replenish-Rate/-Burst-Capacity/-Requested-Tokens"
          + " (RedisRateLimiter: refilled a second's worth at each whole second; no reset, no"
          + " Retry-After)");

  /** What starts it. */
  enum Runtime { NODE, PYTHON, NGINX, JAVA }

  /** How the limiter counts, which decides the allowance over a run. */
  enum Model {
    /** {@code limit} per window, the window starting at the first request. */
    FIXED_WINDOW,
    /** At most {@code limit} in any window-long interval. */
    MOVING_WINDOW,
    /** A burst of {@code limit}, refilled continuously at {@code limit} per window. */
    TOKEN_BUCKET
  }

  /** What the server tells its clients about its quota. */
  enum Family {
    /** Limit, remaining and reset in a format Headway reads, on every response. */
    ADVERTISES,
    /**
     * Part of it: only a {@code Retry-After}, counts under other names, no window, or no word
     * of when units come back.
     */
    HALF_SILENT,
    /** Nothing: a 429 and no header. */
    SILENT
  }

  final String id;
  final Runtime runtime;
  final Model model;
  final Family family;
  final String sends;

  Limiter(String id, Runtime runtime, Model model, Family family, String sends) {
    this.id = id;
    this.runtime = runtime;
    this.model = model;
    this.family = family;
    this.sends = sends;
  }

  /**
   * The documented allowance over {@code windows} windows: what a perfect client gets from this
   * limiter in that time.
   */
  long allowance(int limit, int windows) {
    return switch (model) {
      case FIXED_WINDOW, MOVING_WINDOW -> (long) limit * windows;
      case TOKEN_BUCKET -> (long) limit * (windows + 1); // the burst, then the refill
    };
  }
}
