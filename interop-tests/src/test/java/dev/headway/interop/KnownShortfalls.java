package dev.headway.interop;

import java.util.Map;
import java.util.Optional;

/**
 * The servers against which Headway does not meet its targets yet ({@link Expectations}): the
 * half-silent and silent ones, whose quota Headway has to learn from what they do. Each entry
 * keeps the figures measured when it was written (every adapter, the default run: 20 per 4 s,
 * 15 windows) and a generous bound; a cell fails past the bound (a regression) and also when it
 * meets every target (the entry is then to be removed).
 */
final class KnownShortfalls {
  /**
   * A shortfall: what was measured, and how far it may drift before a cell fails.
   *
   * @param measured the figures when the entry was written, for the failure message
   * @param maxThrottledPercent the most 429s, in % of requests, a cell may show
   * @param minGoodputPercent the least goodput, in % of the allowance, a cell may show
   */
  record Shortfall(String measured, double maxThrottledPercent, double minGoodputPercent) {}

  private static final Map<Limiter, Shortfall> KNOWN = Map.of(
      Limiter.FASTIFY_RETRY_AFTER_ONLY, new Shortfall(
          "4.1-9.7% 429s, 72-80% goodput at 10 per 2 s", 30, 35),
      Limiter.HAPI, new Shortfall(
          "9.8-13.0% 429s, 68-75% goodput at 10 per 2 s", 30, 40),
      Limiter.FLASK_MOVING, new Shortfall(
          "0 429s, 46-47% goodput at 10 per 2 s", 10, 30),
      Limiter.FLASK_MOVING_COST2, new Shortfall(
          "9.8-19.5% 429s, 70-73% goodput at 10 per 2 s", 35, 40),
      Limiter.EXPRESS_THROTTLE, new Shortfall(
          "5.0-8.8% 429s, 6-7 429s after two windows, 96-98% goodput at 10 per 2 s", 25, 60),
      Limiter.NGINX, new Shortfall(
          "4.3-7.1% 429s, 6 429s after two windows, 96-99% goodput at 10 per 2 s", 20, 60));

  private KnownShortfalls() {}

  static Optional<Shortfall> of(Limiter limiter) {
    return Optional.ofNullable(KNOWN.get(limiter));
  }
}
