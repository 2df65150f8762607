package dev.headway.internal.pacer;

import dev.headway.PolicySnapshot;
import java.time.Duration;
import java.util.Optional;

/**
 * The window of a count whose headers give none ({@code X-RateLimit-Limit}, {@code -Remaining}
 * and {@code -Reset}, and no {@code w}), inferred from how its reset moves; 0 until inferred. A
 * server that counts in windows (a fixed window, or a sliding one as Cloudflare's or Kong's,
 * whose reset is the end of the current fixed window) reports the same reset in every response
 * of a window, and moves it on by one window once that instant has passed. A bucket (token
 * bucket, GCRA) reports when it will be full again: its reset moves with every request and with
 * time, and while it is in use it never passes. So a move counts only when:
 *
 * <ul>
 *   <li>the reset it leaves stood still: at least two responses reported it (within a second
 *       either way: whole seconds);
 *   <li>the response that moved it was sent after that reset, less the second the server rounds
 *       whole-second resets by (the window it ended had ended);
 *   <li>it is at least two seconds long (a one-second move is rounding, or a bucket's reset
 *       creeping on).
 * </ul>
 *
 * <p>Two such moves in a row of the same length, within two seconds, make the window: the first
 * of the two, measured between the earliest reports of its two resets (a reset read against a
 * whole-second {@code Date} is late by up to a second, never early), rounded to whole seconds
 * (a client idle for a whole window sees one move of two windows, which the next move
 * contradicts). The inferred window paces only a
 * count that came back while its reset stood still ({@link RefillPacing}: a sliding window's
 * quota comes back all the time, not at the reset; a fixed window's never does, also when other
 * clients share it), and each 429 to a request paced at it halves the pace. A header's own
 * window always wins. Part of its {@link ServerPolicy}; under the partition's monitor.
 */
final class InferredWindow {
  private static final long ONE_SECOND_NANOS = 1_000_000_000L;
  /** A move shorter than this is rounding or a bucket's reset moving on, not a window. */
  private static final long MIN_MOVE_NANOS = 2 * ONE_SECOND_NANOS;
  /** Two moves this close are the same window (each reset is rounded to whole seconds). */
  private static final long SAME_NANOS = 2 * ONE_SECOND_NANOS;
  /**
   * Two resets this close are the same (each read against a whole-second {@code Date}, late by
   * up to a second, and by the round trip).
   */
  private static final long OURS_SAME_NANOS = 3 * ONE_SECOND_NANOS / 2;

  /** The window inferred; 0 until two moves agreed. */
  private long windowNanos;
  /**
   * How many times the pace at the inferred window drew a 429 (each halves it): a guess gives
   * way at every contradiction, as several clients sharing the count make it.
   */
  private int halvings;
  /** A 429 to a request sent before this belongs to the overshoot already answered. */
  private long halvedAtNanos = Long.MIN_VALUE;
  /**
   * Whether the count rose while the reset stood still: units came back within a window (a
   * sliding window). A fixed window's count rises only when its reset moves on, also when
   * other clients share it.
   */
  private boolean roseWithin;
  /** The last reset reported; Long.MIN_VALUE before any. */
  private long resetAtNanos = Long.MIN_VALUE;
  /** How many responses reported that reset. */
  private int reports;
  /** The length of the last move that counted; 0 if the last move did not count. */
  private long lastMoveNanos;
  /** How many moves in a row agreed with the window inferred (the first inference: 1). */
  private int agreed;
  /** The reset the admitted answers below reported; Long.MIN_VALUE before any. */
  private long oursResetNanos = Long.MIN_VALUE;
  /**
   * How many admitted answers reported {@link #oursResetNanos} (within a second and a half):
   * for a lone client, the units it spent under that reset.
   */
  private long ours;
  /**
   * The reset the admitted answers reported before {@link #oursResetNanos}, and how many did:
   * for a lone client, what it spent in the window before. Long.MIN_VALUE before any.
   */
  private long previousResetNanos = Long.MIN_VALUE;
  private long previousOurs;
  /**
   * The most left that an admitted answer reporting {@link #oursResetNanos} said, and the same
   * for the reset before it; -1 if none. In a fleet the counts are the fleet's: how far the count
   * fell under one reset is what the fleet spent there.
   */
  private long oursMostLeft = -1;
  private long previousMostLeft = -1;

  /**
   * Counts an answer with {@code status} that reported {@code resetAt} (Long.MIN_VALUE if none),
   * every answer taken or not (answers to requests sent together are taken one).
   */
  void answered(long resetAt, int status, long left) {
    if (resetAt == Long.MIN_VALUE || status >= 400) {
      return;
    }
    if (oursResetNanos != Long.MIN_VALUE
        && Math.abs(Time.sub(resetAt, oursResetNanos)) <= OURS_SAME_NANOS) {
      ours++;
      oursResetNanos = Math.min(oursResetNanos, resetAt);
      oursMostLeft = Math.max(oursMostLeft, left);
    } else if (oursResetNanos == Long.MIN_VALUE || resetAt > oursResetNanos) {
      previousResetNanos = oursResetNanos;
      previousOurs = ours;
      previousMostLeft = oursMostLeft;
      oursResetNanos = resetAt; // (a late answer of the window before is not counted)
      ours = 1;
      oursMostLeft = left;
    }
  }

  /**
   * Returns the most left that an admitted answer reporting {@code resetAt} (within a second and
   * a half) said, if it is the reset reported last or the one before; -1 if not known.
   */
  long mostLeftUnder(long resetAt) {
    if (oursResetNanos != Long.MIN_VALUE
        && Math.abs(Time.sub(resetAt, oursResetNanos)) <= OURS_SAME_NANOS) {
      return oursMostLeft;
    }
    return previousResetNanos != Long.MIN_VALUE
        && Math.abs(Time.sub(resetAt, previousResetNanos)) <= OURS_SAME_NANOS
        ? previousMostLeft : -1;
  }

  /**
   * Returns how many admitted answers reported the reset that ends the window before the one
   * running at {@code atNanos}, for windows {@code windowNanos} long whose resets the answers
   * reported: the units this client spent in that window (0 if none, or if not known). A
   * sliding-window counter gives back, over each window, what the window before held.
   */
  long spentInWindowBefore(long atNanos, long windowNanos) {
    if (oursResetNanos == Long.MIN_VALUE || windowNanos <= 0) {
      return 0;
    }
    if (atNanos >= oursResetNanos) {
      // The window of the last reset reported has ended: it is the window before.
      return Time.sub(atNanos, oursResetNanos) < windowNanos ? ours : 0;
    }
    return previousResetNanos != Long.MIN_VALUE
        && Time.sub(oursResetNanos, previousResetNanos) <= windowNanos + OURS_SAME_NANOS
        ? previousOurs : 0;
  }

  /**
   * Returns how many admitted answers reported {@code resetAt} (within a second and a half)
   * since the reset reported last moved on; 0 if the last one reported is another.
   */
  long admittedUnder(long resetAt) {
    return oursResetNanos != Long.MIN_VALUE
        && Math.abs(Time.sub(resetAt, oursResetNanos)) <= OURS_SAME_NANOS ? ours : 0;
  }

  /**
   * Whether the reset reported last stood still: at least two admitted answers reported it
   * (within a second), as a window's reset does; a bucket's moves on with every request.
   */
  boolean stoodStill() {
    return reports >= 2;
  }

  /** Returns {@code declaredNanos}, the server's own window, if known (above 0), else this one. */
  long or(long declaredNanos) {
    return declaredNanos > 0 ? declaredNanos : roseWithin ? windowNanos << halvings : 0;
  }

  /**
   * Returns the window to show in a snapshot: the server's own ({@code declaredNanos}, above 0),
   * else the one inferred (as paced, for a count that comes back within it), else none.
   */
  Optional<Duration> shown(long declaredNanos) {
    long nanos = declaredNanos > 0 ? declaredNanos
        : roseWithin ? windowNanos << halvings : windowNanos;
    return nanos > 0 ? Optional.of(Duration.ofNanos(nanos)) : Optional.empty();
  }

  /**
   * Returns {@code snapshot} marked as learned when its window is the inferred one (no window
   * declared in {@code declaredNanos}): its confidence grows with the moves that agreed with
   * it, and falls with each 429 its pace drew.
   */
  PolicySnapshot mark(PolicySnapshot snapshot, long declaredNanos) {
    if (declaredNanos > 0 || windowNanos == 0) {
      return snapshot;
    }
    return snapshot.asLearned(agreed / (agreed + 1.0 + halvings));
  }

  /**
   * Takes the reset ({@code resetAt}, or Long.MIN_VALUE if none) of a response with
   * {@code status} to a request sent at {@code sentNanos}, received at {@code nowNanos};
   * {@code rose}: its count is above the one before, less this request; {@code paced}: the
   * request was paced at the inferred window. A 429 to a paced request halves the pace (once per
   * overshoot, down to 1/1024 of the first guess). Only admitted requests tell the window: a
   * bucket's refusals all report the same reset (they took nothing), as a window's would.
   */
  void observe(long resetAt, long sentNanos, int status, boolean rose, boolean paced,
      long nowNanos) {
    if (status == 429 && paced && windowNanos > 0 && sentNanos >= halvedAtNanos
        && halvings < 10) {
      halvings++;
      halvedAtNanos = nowNanos;
    }
    if (resetAt == Long.MIN_VALUE || status >= 400) {
      return;
    }
    long move = resetAtNanos == Long.MIN_VALUE ? Long.MAX_VALUE : Time.sub(resetAt, resetAtNanos);
    if (Math.abs(move) <= ONE_SECOND_NANOS) {
      // The same reset, read late by up to a second (or a bucket's, creeping on). A reset read
      // against a whole-second Date is late by the part of a second the Date dropped, never
      // early: the earliest report is the nearest to the server's own, and the move that led
      // here shortens with it.
      roseWithin |= rose;
      if (resetAt < resetAtNanos) {
        if (lastMoveNanos > 0) {
          lastMoveNanos -= resetAtNanos - resetAt;
        }
        resetAtNanos = resetAt;
      }
      reports++;
      return;
    }
    boolean counts = resetAtNanos != Long.MIN_VALUE && move >= MIN_MOVE_NANOS
        && reports >= 2
        && sentNanos >= Time.sub(resetAtNanos, ONE_SECOND_NANOS);
    if (counts && lastMoveNanos > 0 && Math.abs(move - lastMoveNanos) <= SAME_NANOS) {
      // The last move runs from the earliest report of one reset to the earliest of the next:
      // both ends late by about as much, so its length is the window's, to the nearest second.
      // This move ends at the first report of its reset, late by up to a second: it only has to
      // agree.
      long inferred =
          (lastMoveNanos + ONE_SECOND_NANOS / 2) / ONE_SECOND_NANOS * ONE_SECOND_NANOS;
      agreed = Math.abs(inferred - windowNanos) <= SAME_NANOS ? Math.min(agreed + 1, 1 << 20) : 1;
      windowNanos = inferred;
    }
    lastMoveNanos = counts ? move : 0;
    resetAtNanos = resetAt;
    reports = 1;
  }
}
