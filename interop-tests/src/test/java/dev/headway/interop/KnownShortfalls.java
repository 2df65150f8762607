package dev.headway.interop;

import java.util.Map;
import java.util.Optional;

/**
 * The servers against which Headway does not meet its targets yet ({@link Expectations}): the
 * half-silent and silent ones, whose quota Headway has to learn from what they do, and one that
 * advertises its quota with a coarse reset. Each entry
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

  private static final Map<Limiter, Shortfall> KNOWN = Map.ofEntries(
      // Advertises its quota, but its reset is a whole epoch second rounded up: Headway waits for
      // it, up to a second past the real reset of each window. No 429 (still asserted).
      Map.entry(Limiter.EXPRESS_LEGACY, new Shortfall("0 429s, 77-84% goodput", 100, 55)),
      Map.entry(Limiter.FASTIFY_RETRY_AFTER_ONLY, new Shortfall(
          "4.1-4.5% 429s, 3-4 of them after two windows, 86-88% goodput", 30, 45)),
      Map.entry(Limiter.HAPI, new Shortfall(
          "7.8-10.3% 429s, 13-15 of them after two windows, 73-87% goodput", 30, 45)),
      // Two outcomes, from one cell to the next: no 429 at 58% of the allowance, or 4.0-4.4%
      // 429s, all after two windows, at 80-88%.
      Map.entry(Limiter.NESTJS, new Shortfall(
          "0 429s at 58% goodput, or 4.0-4.4% 429s at 80-88%", 25, 40)),
      Map.entry(Limiter.FLASK_MOVING, new Shortfall("0 429s, 50-52% goodput", 10, 30)),
      Map.entry(Limiter.FLASK_MOVING_COST2, new Shortfall(
          "5.5-7.0% 429s, 12-16 of them after two windows, 80-87% goodput", 30, 45)),
      Map.entry(Limiter.EXPRESS_THROTTLE, new Shortfall(
          "5.1-6.2% 429s, 9-11 of them after two windows, 98-99% goodput", 25, 60)),
      Map.entry(Limiter.NGINX, new Shortfall(
          "4.2-4.5% 429s, 9-10 of them after two windows, 99-100% goodput", 25, 60)));

  private KnownShortfalls() {}

  static Optional<Shortfall> of(Limiter limiter) {
    return Optional.ofNullable(KNOWN.get(limiter));
  }
}
