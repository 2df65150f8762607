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
   * @param failsWhenGone whether a cell that meets the targets fails (so that the entry goes);
   *     false only for a server whose figures straddle a target from one run to the next
   */
  record Shortfall(String measured, double maxThrottledPercent, double minGoodputPercent,
      boolean failsWhenGone) {
    Shortfall(String measured, double maxThrottledPercent, double minGoodputPercent) {
      this(measured, maxThrottledPercent, minGoodputPercent, true);
    }
  }

  private static final Map<Limiter, Shortfall> KNOWN = Map.ofEntries(
      // Advertises its quota, but its reset is a whole epoch second rounded up, the same on every
      // answer of a window, and a window starts at the request that opens it: waited for, each
      // window opened just past a whole second, its end was rounded up by almost a second, and
      // every window opened about a second late (74-90%, no 429). The answer to the request that
      // opened a window gives the window plus the second of rounding: the last unit now goes at
      // that answer plus its reset less a second, and finds the next window there (95% in
      // virtual time, EpochSecondResetServersTest). 83-94% in 22 cells since (all seven clients
      // twice, okhttp and jdk-send four times more; load average 10-21), no 429, against 80-86%
      // for okhttp and jdk-send on main in the same hour; a window gives 19 of its 20 (the last
      // unit opens the next), so a loaded cell still falls below 90%: the bound only, raised to
      // 75%.
      Map.entry(Limiter.EXPRESS_LEGACY, new Shortfall(
          "0 429s, 83-94% goodput (74-90% before its last unit met the window's end)", 100, 75,
          false)),
      // A sliding log whose reset trails each request: paced as a log once its counts and its
      // reset agree on a window (about two windows in): 0 429s at 88-96% of the allowance
      // (was 50-57%: paced to a reset each request pushed on), both sides of the target from
      // one run to the next: the bound only.
      Map.entry(Limiter.FLASK_MOVING, new Shortfall("0 429s, 88-96% goodput", 3, 75, false)),
      // Read since its X-RateLimit-User* headers are: 0 429s in every cell, 86-99% of the
      // allowance (CI: 90-99%; a later okhttp cell: 86%), so both sides of the goodput target
      // from one run to the next: the bound only, with its 429s held near 0.
      Map.entry(Limiter.HAPI, new Shortfall("0 429s, 86-99% goodput", 1, 80, false)),
      // The first window (20 admitted, then Retry-After: 4) is the rate discovered: 19.5 per
      // 4 s from the second window, and a window that admitted as many replaces that measure
      // (a request sent early by the loaded machine's scheduling no longer leaves the pace low
      // for a window or two). The first burst still draws 5-8 429s (2.0-2.7%), so one more
      // 429 lands a cell on the 3% line; and on a loaded machine the first window's length
      // can be taken for 5 s, not 4 (its burst and the 429's round trip are late), pacing
      // 15-16 a window with no 429 to correct it (one jdk-send cell of six this session: 78%;
      // surefire's rerun met every target). Four cells of two full runs met every target:
      // the bound only, not loosened.
      Map.entry(Limiter.FASTIFY_RETRY_AFTER_ONLY, new Shortfall(
          "2.0-2.7% 429s, none after the first window, 96-97% goodput in 5 cells of 6; one"
              + " at 78% (its first window taken for 5 s)", 6, 85, false)),
      // A sliding log: once its count has come back before its tracker's reset, it is paced as
      // one (0 429s, 86-99% of the allowance). Some cells never see the count come back before
      // that reset and wait for it (0 429s at 58%). About one in five drew one 429 and a block
      // each window (4.4-5.1% at 81-87%): a block's refusals and the wipe at its end made the
      // log unlearn itself. A log now survives a block: in 6 cells since, 0-0.8% 429s (0-2,
      // at most one after two windows) at 84-93%, or the 58% mode (once). So both sides of the
      // goodput target from one cell to the next: the bound only (main's was 25% 429s). A 429
      // the log did not cause no longer unlearns it (one way to the 429-a-window mode, found in
      // virtual time): 4 cells in two runs since, 0 429s at 90-92%. The 58% mode, traced: each
      // hit leaves by a Node timer a few ms after the tracker expires, so a request sent at the
      // reset found the count still spent and a reset a window on, and the client waited that
      // window out, every other window (20, 2, 20, 2...). A reset that moves on while the count
      // stays spent now says the server refills (55% -> 74% in virtual time). Four cells in two
      // runs since: 93-94% with 0-1 429 (none after two windows), and an okhttp cell at 82%
      // (three alternations before its window was inferred). Bound unchanged.
      Map.entry(Limiter.NESTJS, new Shortfall(
          "0-0.8% 429s at 84-99% goodput, or 0 at 58% (4.4-5.1% at 81-87% before a log"
              + " survived a block)", 6, 40, false)),
      // Flask-Limiter's moving window, a sliding log whose reset trails each request, with each
      // request charged the 2 units the remaining count drops by. Its log is recognised once the
      // answers agreeing with it cost a quota's worth of units (one window of answers at cost 2;
      // two windows when a quota of answers was asked for): 0-0.7% 429s (none after two windows)
      // at 68-90% before, 80-93% in four cells since; its first two cycles still wait for its
      // reset. A cell at 90% meets every target, so the bound only.
      Map.entry(Limiter.FLASK_MOVING_COST2, new Shortfall(
          "0-0.7% 429s, none after two windows, 68-90% goodput", 3, 65, false)),
      // The token buckets: the first burst draws 4-8 429s and the discovery one or two more in
      // the second window; then 18-19 a window and at most the probe's. Some cells meet every
      // target, others miss by one 429 after two windows (1.15 a minute over the 52 s left) or
      // a few tenths of a point of 429s: the bound only.
      Map.entry(Limiter.EXPRESS_THROTTLE, new Shortfall(
          "2.5-3.3% 429s, 0-1 of them after two windows, 92-98% goodput", 10, 80, false)),
      Map.entry(Limiter.NGINX, new Shortfall(
          "1.6-2.9% 429s, 0-1 of them after two windows, 95-96% goodput", 10, 80, false)),
      // Its count and refill rate are read, but it does not say that its tokens come back a
      // second's worth at each whole second: Headway finds the steps from its first 429s (after
      // one to four windows on a loaded machine), then draws none (before: 10-11% 429s, about
      // one per step all the way through). Both sides of the 3% target: the bound only. Cells
      // that drew 7-15 after two windows were found slowly (a refused request released on an
      // older count did not say "flat") or too short (0.8 s steps from a rise others had partly
      // spent); both fixed: in 14 cells since, 12 with none after two windows (0.3-1.7% 429s,
      // 85-98%), a jdk-send cell with 2 and a RestClient cell with 37 (11.6%; rerun 0.9%, none).
      // Bound unchanged.
      Map.entry(Limiter.SPRING_CLOUD_GATEWAY, new Shortfall(
          "0.3-7.0% 429s, 0-17 of them after two windows, 89-100% goodput", 10, 80, false)));

  /**
   * The most 429s after the first window a cell of a server that advertises its quota may show:
   * none. (Two or three cells of 84 per CI run used to draw one right after a reset, 21 requests
   * into a window of 20: answers applied in another order than the server counted their
   * requests. And koa drew storms: its {@code Retry-After}, rounded down, was taken for its
   * reset.)
   */
  static int stragglers(Limiter limiter, String adapter) {
    return 0;
  }

  private KnownShortfalls() {}

  static Optional<Shortfall> of(Limiter limiter) {
    return Optional.ofNullable(KNOWN.get(limiter));
  }
}
