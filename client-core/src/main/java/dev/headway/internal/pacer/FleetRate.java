package dev.headway.internal.pacer;

import dev.headway.store.RefillRate;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Shares with the fleet how fast a server gives units back, and reads it back. A server that
 * refills continuously (token bucket, GCRA, sliding window: its policy is paced at the refill
 * rate, see {@link RefillPacing}) gives the fleet one unit every window / quota, not the whole
 * quota at its reset: the store then lets the shared count grow at that rate between server
 * counts, and the instances share what comes back (each lease about the available units divided
 * by the instances). The rate is told when this instance first paces a policy at its refill rate,
 * when the rate changes, and again every {@value #RETELL_MINUTES} minutes while it lasts (a store
 * forgets a rate after a day). Under the partition's monitor.
 */
final class FleetRate {
  static final long RETELL_MINUTES = 10;
  private static final long RETELL_NANOS = RETELL_MINUTES * 60_000_000_000L;
  /** A refused instance looks again at least this late after a refill (spreads the fleet). */
  private static final long MIN_LOOK_NANOS = 1_000_000L;

  private long toldUnits;
  private long toldPeriodNanos;
  private long toldAtNanos = Long.MIN_VALUE;
  /**
   * How much slower than quota / window the fleet is told to go, in 1/1024ths, by the rule of
   * {@link RefillPacing}: each 429 answered while the rate is shared doubles it, up to 15 times;
   * each success takes 1/256 of it off, down to {@value #MIN_SLOWDOWN} (1/16). Kept in 1/256ths
   * of those units (shifted by {@value #FINE_BITS} bits), so that a slowdown below 256 still
   * loses its 1/256 per success (in whole 1/1024ths it lost nothing, and one 429 doubled it for
   * good). The rate a store refills at is counted from a count's instant, which is taken before
   * the server counted the request (the allowance for requests overtaking each other, and the
   * way there), and a sliding window refills at the rate of its previous fixed window's count,
   * which a fleet at its limit keeps a little below the quota: at 1/64 below quota / window,
   * units given back came a few milliseconds early (429s with a {@code Retry-After} of 0-18 ms,
   * a few every 10 minutes on round trips and phases nobody tuned on) and two instances'
   * requests for them drew 429s.
   * Between two counts only: every count the server sends re-bases the store's, so the fleet
   * still gets what the server gives back.
   */
  private long slowdownFine = (long) MIN_SLOWDOWN << FINE_BITS;
  /** The fleet's rate is always at least 1/16 below quota / window. */
  static final int MIN_SLOWDOWN = 64;
  /** The slowdown is kept with this many more bits than 1/1024ths. */
  static final int FINE_BITS = 8;
  private long slowedAtNanos = Long.MIN_VALUE;
  /** Two resets this close are one (whole seconds, read late by up to a second). */
  private static final long SAME_RESET_NANOS = 1_500_000_000L;
  /** The reset the counts below were reported under; Long.MIN_VALUE before any. */
  private long shownResetNanos = Long.MIN_VALUE;
  /** The most and the least units left the counts under that reset showed. */
  private long mostLeft;
  private long leastLeft;
  /**
   * The counts this instance took showed at least half the quota spent under one reset. A
   * bucket whose burst is far below the quota it reports (a GCRA saying its hourly quota as the
   * limit) never shows that: its count never holds more than the burst.
   */
  private boolean spentHalf;
  /**
   * A count whose reset is when a bucket is full again (a token bucket's or GCRA's, told in
   * {@code X-RateLimit-Reset} with no window): the first answer read since its reset last passed
   * (engine times; Long.MIN_VALUE before any), and the time one unit takes to come back that
   * the answers since showed (0 until shown).
   */
  private long anchorAtNanos = Long.MIN_VALUE;
  private long anchorResetNanos;
  private long anchorLeft;
  private long bucketUnitNanos;
  /** The fall and the unit's time the first two answers of the run showed, to be confirmed. */
  private long candidateFell;
  private long candidateUnitNanos;
  /** How far apart, at least, the two answers' times to full must be (resets in whole seconds). */
  private static final long BUCKET_SPAN_NANOS = 10_000_000_000L;

  /**
   * Records the outcome of a request sent at {@code sentNanos} on a policy paced at its refill
   * rate: a 429 slows the fleet's rate (once per overshoot), a success speeds it up slowly.
   */
  void outcome(@Nullable ServerPolicy policy, boolean throttled, long sentNanos, long now) {
    if (policy != null) {
      shown(policy, now);
    }
    if (policy == null || (!policy.refillPaced() && !bucketPaced(policy))
        || toldAtNanos == Long.MIN_VALUE) {
      return;
    }
    long floor = (long) MIN_SLOWDOWN << FINE_BITS;
    if (!throttled) {
      slowdownFine = Math.max(floor, slowdownFine - (slowdownFine >> 8));
    } else if (sentNanos >= slowedAtNanos) {
      slowedAtNanos = now;
      slowdownFine = Math.min((long) RefillPacing.MAX_SLOWDOWN << FINE_BITS,
          Math.max(floor, slowdownFine * 2));
    }
  }

  /** Takes the count {@code policy} holds after a response: how far it fell under its reset. */
  private void shown(ServerPolicy policy, long now) {
    if (!policy.count.known() || !policy.window.hasReset || policy.quota <= 0) {
      return;
    }
    long left = policy.count.remaining;
    long reset = policy.window.resetAtNanos;
    if (policy.window.windowNanos <= 0) {
      bucket(left, reset, policy.quota, now);
    }
    if (shownResetNanos == Long.MIN_VALUE
        || Math.abs(Time.sub(reset, shownResetNanos)) > SAME_RESET_NANOS) {
      shownResetNanos = reset;
      mostLeft = left;
      leastLeft = left;
    } else {
      mostLeft = Math.max(mostLeft, left);
      leastLeft = Math.min(leastLeft, left);
    }
    spentHalf |= Time.mul(Time.sub(mostLeft, leastLeft), 2) >= policy.quota;
  }

  /**
   * A count of {@code left} whose reset is {@code reset}, read at {@code now}: a bucket's reset is
   * when it is full again, so its time to full grows by one unit's refill for each unit the
   * count fell (also when other instances spent them), while a window's reset stands still and
   * its time to full shrinks as the count falls. Two answers under one run of resets (the first
   * one's reset not passed), the count fallen by a quarter of the quota or more, and the time to
   * full grown by ten seconds or more (whole-second resets), give the time a unit takes.
   */
  private void bucket(long left, long reset, long quota, long now) {
    if (anchorAtNanos == Long.MIN_VALUE || now >= anchorResetNanos || left > anchorLeft) {
      anchorAtNanos = now;
      anchorResetNanos = reset;
      anchorLeft = left;
      candidateFell = 0;
      return;
    }
    long fell = anchorLeft - left;
    long grew = Time.sub(Time.sub(reset, now), Time.sub(anchorResetNanos, anchorAtNanos));
    if (fell * 4 < quota || grew < BUCKET_SPAN_NANOS) {
      return;
    }
    long unit = grew / fell;
    if (candidateFell > 0 && fell * 8 >= Time.add(candidateFell * 8, quota)
        && Math.abs(unit - candidateUnitNanos) * 8 <= unit) {
      // A second fall, an eighth of the quota further, grew the time to full at the same pace
      // (to an eighth): a bucket's reset, not a window's that moved on.
      bucketUnitNanos = unit;
    }
    if (candidateFell == 0 || fell * 8 >= Time.add(candidateFell * 8, quota)) {
      candidateFell = fell;
      candidateUnitNanos = unit;
    }
  }

  /**
   * Whether {@code policy}, a count without a window that other instances share, is paced at the
   * bucket's pace its answers showed ({@link #bucket}); alone, an instance reads a bucket by the
   * units it sees come back, as without a store.
   */
  private boolean bucketPaced(ServerPolicy policy) {
    return bucketUnitNanos > 0 && policy.quota > 0 && !policy.pacedAlone
        && policy.inferred.or(policy.window.windowNanos) <= 0;
  }

  /**
   * Returns the rate to tell the store now, or null: the refill rate of {@code policy} (units per
   * window, slowed down by the fleet's 429s) when it is paced at its refill rate and was not
   * told recently (or its period moved by 1/128 or more). The window is the one the policy is
   * paced at ({@link ServerPolicy#refillWindow()}): the server's, the one inferred, or for a count
   * without a window the bound a move of its reset gave, once its counts showed at least half
   * the quota spent under one reset. Before, a count paced at a move was never told: the store
   * kept its spent count until the reset and refused the other instances the units the server
   * gave back. A move is a guess (a bucket whose reset moved on after the others' requests spent
   * it looks the same) that a 429 drops for the instance, but not for the store: a bucket whose
   * count never held half its quota is not a window whose quota comes back over the move.
   * A count without a window whose answers showed a bucket's reset (see {@link #bucket}) is told,
   * once other instances share it, at the quota per the time the quota takes to come back at the
   * unit's pace they showed (alone, an instance reads such a bucket by the units it sees come
   * back, as without a store).
   */
  @Nullable RefillRate toTell(@Nullable ServerPolicy policy, Instant wall, long now) {
    boolean bucket = policy != null && bucketPaced(policy);
    if (policy == null || (!policy.refillPaced() && !bucket)) {
      return null;
    }
    if (!bucket && policy.inferred.or(policy.window.windowNanos) <= 0 && !spentHalf) {
      return null;
    }
    long units = policy.quota;
    long window = bucket && !policy.refillPaced() ? Time.mul(bucketUnitNanos, units)
        : policy.refillWindow();
    long period = Time.add(window, Time.mul(window / 1024, slowdownFine >> FINE_BITS));
    // Told again once the period moved by 1/128 or more: the first 429 adds 1/16 of the window.
    if (units == toldUnits && Math.abs(period - toldPeriodNanos) < toldPeriodNanos / 128
        && toldAtNanos != Long.MIN_VALUE && Time.sub(now, toldAtNanos) < RETELL_NANOS) {
      return null;
    }
    RefillRate rate;
    try {
      rate = new RefillRate(units, Duration.ofNanos(period), wall);
    } catch (IllegalArgumentException e) {
      return null; // out of the store's bounds: not shared
    }
    toldUnits = units;
    toldPeriodNanos = period;
    toldAtNanos = now;
    return rate;
  }

  /** Returns the time {@code rate} takes to give back {@code units}. */
  static long refillNanos(RefillRate rate, long units) {
    return (long) Math.min(Long.MAX_VALUE / 4.0,
        (double) units * rate.period().toNanos() / rate.units());
  }

  /**
   * Returns when a refused instance asks again for {@code units}, by the fleet's state {@code
   * state}: when the rate has given them back, then a share of one refill interval per other
   * instance (so that the instances do not all ask at the same instant for one unit); null when
   * the state has no rate or count to tell.
   */
  static @Nullable Instant retryAt(SharedQuota state, long units, long spread) {
    Optional<Instant> back = state.refilledAt(units);
    if (back.isEmpty()) {
      return null;
    }
    RefillRate rate = state.refillRate().get();
    long interval = Math.max(MIN_LOOK_NANOS, rate.period().toNanos() / rate.units());
    long others = Math.max(0, state.instances() - 1);
    long offset = others == 0 ? 0 : Math.floorMod(spread, others + 1) * interval;
    if (FleetGuess.POLICY.equals(state.key().policy())) {
      // The fleet's own budget holds a unit or two: the instances look again within the one
      // interval that brings the next back, or it would go unused.
      offset /= others + 1;
    }
    return back.get().plusNanos(Math.min(offset, Duration.ofMinutes(1).toNanos()));
  }
}
