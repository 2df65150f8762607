package dev.headway.store;

import java.time.Duration;
import java.time.Instant;

/**
 * The fleet's hold of one key in the in-memory store, and what a bare 429's backoff is judged
 * on: the fleet's latest hold (its end and length, kept for as long again after it ends), whether
 * a request the fleet sent at or after its end was admitted, and, while the hold in force is
 * a doubling, the hold the refusals alone asked for; all of it only on a key a bare 429 backed
 * off on (the fleet's own budget), elsewhere only the hold's end. The Redis store keeps the same
 * fields in its hold key (quota.lua). The rule: <b>a hold doubles only when nothing the fleet sent since the
 * latest hold ended was admitted</b>, whichever instance's answer says so, whichever comes first.
 * Guarded by the store's monitor.
 */
final class FleetHold {
  /** A lift's hold is the one in force if they end within this of each other. */
  private static final Duration LIFT_SLACK = Duration.ofSeconds(1);

  /** The end of the hold in force, or null. */
  private Instant until;
  /**
   * Whether a bare 429 backed off on this key (the fleet's own budget, where the server says
   * nothing): only then is the latest hold kept, with its length, after its end. Other keys'
   * holds are an end alone, as the Redis store writes them for every version to read.
   */
  private boolean tracked;
  /** The end and length of the fleet's latest hold (kept a length after its end), or null. */
  private Instant latestEnd;
  private Duration latestLength = Duration.ZERO;
  /** A request sent at or after the latest hold's end was admitted. */
  private boolean admitted;
  /**
   * While the hold in force doubles a hold that ended at {@code doubledFrom}: the hold without
   * the doubling (the refusals' own), and its length.
   */
  private Instant doubledFrom;
  private Instant base;
  private Duration baseLength = Duration.ZERO;

  /** The end of the hold in force as of the last call, or null. */
  Instant until() {
    return until;
  }

  /** Holds until {@code end} (capped), unless a hold in force ends later. */
  void hold(Instant end, Instant now) {
    expire(now);
    if (!end.isAfter(now)) {
      return;
    }
    if (doubledFrom != null && !end.isAfter(until)) {
      // A refusal's own hold within the doubled one: the hold without the doubling grows.
      if (end.isAfter(base)) {
        base = end;
        baseLength = Duration.between(now, end);
      }
      return;
    }
    if (until == null || end.isAfter(until)) {
      until = end;
      if (tracked) {
        latest(end, now);
      }
      doubledFrom = null;
    }
  }

  /**
   * A bare 429 to a request sent at {@code sentAt}, whose instance holds itself until {@code
   * end}: twice the latest hold's length from now (at most {@code longest}) if the request was
   * sent after that hold ended, within its length of the end, and nothing sent since that end was
   * admitted; else as {@link #hold}.
   */
  void backOff(Instant end, Instant sentAt, Instant longest, Instant now) {
    expire(now);
    Instant from = latestEnd;
    boolean answers = from != null && !now.isBefore(from) && !sentAt.isBefore(from)
        && !sentAt.isAfter(from.plus(latestLength))
        && !admitted;
    Instant doubled = answers ? now.plus(latestLength.multipliedBy(2)) : null;
    if (doubled != null && doubled.isAfter(longest)) {
      doubled = longest;
    }
    tracked = true;
    if (doubled == null || !doubled.isAfter(end) || !doubled.isAfter(now)) {
      hold(end, now);
      return;
    }
    base = end.isAfter(now) ? end : now;
    baseLength = Duration.between(now, base);
    until = doubled;
    latest(doubled, now);
    doubledFrom = from;
  }

  /** The server admitted a request sent at {@code sentAt}. */
  void admitted(Instant sentAt, Instant now) {
    expire(now);
    if (!tracked) {
      return;
    }
    if (doubledFrom != null && !sentAt.isBefore(doubledFrom)) {
      // The fleet had something admitted since the hold this one doubled: not doubled after all.
      until = base.isAfter(now) ? base : null;
      latest(base, now);
      latestLength = baseLength;
      doubledFrom = null;
    } else if (latestEnd != null && !sentAt.isBefore(latestEnd)) {
      admitted = true;
    }
  }

  /** A request sent during the hold ending at {@code end} was admitted: that hold is over. */
  void lift(Instant end) {
    if (until != null && Duration.between(until, end).abs().compareTo(LIFT_SLACK) <= 0) {
      until = null;
      latestEnd = null;
      latestLength = Duration.ZERO;
      doubledFrom = null;
      tracked = false;
    }
  }

  private void latest(Instant end, Instant now) {
    latestEnd = end;
    latestLength = Duration.between(now, end);
    admitted = false;
  }

  /** Forgets what is over at {@code now}. */
  void expire(Instant now) {
    if (until != null && !until.isAfter(now)) {
      until = null;
      doubledFrom = null;
      tracked = tracked && latestEnd != null; // as the Redis store's hold key expires
    }
    if (latestEnd != null && latestEnd.plus(latestLength).isBefore(now)) {
      latestEnd = null;
      latestLength = Duration.ZERO;
      admitted = false;
      tracked = tracked && until != null;
    }
  }
}
