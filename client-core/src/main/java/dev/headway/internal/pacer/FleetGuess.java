package dev.headway.internal.pacer;

import dev.headway.RateLimitSignal;
import dev.headway.store.QuotaKey;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The fleet's pace where the server gives no count: it says only {@code Retry-After}, or
 * throttles with bare 429s. Without a number to share, every instance would pace alone at the
 * rate it learned, and when a hold ends they would all send at once (one admitted, the rest
 * refused and held again). So the fleet keeps a budget of its own under a second key of the
 * partition ({@value #POLICY}): a count the server implied, refilled at a rate the fleet learned,
 * which the instances lease from as they do from a server's count.
 *
 * <ul>
 *   <li>A throttled response is a count of 0 at the instant the request was sent: it is told to
 *       the store as such ({@link #count}): a bucket of {@value #BURST} units refilled at the
 *       fleet's rate (a short burst after a hold, never the whole fleet at once).
 *   <li>The fleet's rate starts, at the first 429, from what the fleet sent: this instance's
 *       requests since first contact over that time and the hold, times the instances seen (an
 *       upper bound: a burst spent stored capacity); when the hold is short (at most maxWait),
 *       at most one request per hold, the hold saying when the next unit is back.
 *   <li>A 429 to a request sent since the rate was last set cuts it to nine tenths (not below
 *       one request per short hold); a 429 to a request sent before belongs to an overshoot
 *       already answered.
 *   <li>Once the rate has held someone back (a lease refused without a hold), an admitted
 *       response raises it by {@code 1/32} once per {@value #CYCLE_UNITS} units at that rate
 *       (at least 100 ms): slow enough that one 429 answers several raises.
 *   <li>A number from a header always wins over the guess: a response with a quota or a count
 *       ends it, and the partition leases from its server count again.
 * </ul>
 *
 * <p>The rate lives in the store (each instance reads it from its answers); the last one set
 * wins. Part of a {@link FleetReport}; under the partition's monitor.
 */
final class FleetGuess {
  /** The policy name of the budget the fleet keeps where the server gives no count. */
  static final String POLICY = "learned";
  /** The most units the budget holds: what may go at once after a hold. */
  static final long BURST = 2;
  /** Units per period of the rate as stored (its precision). */
  private static final long PERIOD_UNITS = 64;
  /** How long an implied count is kept without a rate (the store's window for it). */
  private static final Duration WINDOW = Duration.ofHours(1);
  private static final double SECOND = 1e9;
  private static final double CUT = 0.9;
  /** The raise once the fleet overshot: one 429 answers several. */
  private static final double RAISE = 1.0 / 64;
  /** The raise until the fleet first overshot (the first rate is a lower bound). */
  private static final double FIRST_RAISE = 1.0 / 8;
  static final long CYCLE_UNITS = 8;
  private static final long MIN_CYCLE_NANOS = 100_000_000L;
  /** The slowest rate kept: one request a day. */
  private static final double MIN_RATE = 1.0 / 86_400;

  /** The key of the fleet's budget; null when it cannot be named. */
  final @Nullable QuotaKey key;
  /** Whether the partition leases from the fleet's budget (the server gave no count). */
  private boolean active;
  /** The fleet's rate as last seen in a store answer or set here. */
  private @Nullable RefillRate known;
  /** The instances the store saw last. */
  private int instances = 1;
  /** A lease was refused by the rate (not a hold) since the rate was last raised. */
  private boolean heldBack;
  /** Whether the fleet's rate was cut since this instance knows it. */
  private boolean cut;

  FleetGuess(QuotaKey key) {
    QuotaKey k;
    try {
      k = new QuotaKey(key.partition(), POLICY);
    } catch (IllegalArgumentException e) {
      k = null;
    }
    this.key = k;
  }

  /** Whether the partition leases from the fleet's budget rather than from a server count. */
  boolean active() {
    return active && key != null;
  }

  /** Reads what a store answer says of the fleet: its instances, and the fleet's rate. */
  void seen(SharedQuota state) {
    instances = Math.max(1, state.instances());
    if (state.key().equals(key) && state.refillRate().isPresent()) {
      RefillRate rate = state.refillRate().get();
      if (known == null || !rate.learnedAt().isBefore(known.learnedAt())) {
        cut |= known != null && perSecond(rate) < perSecond(known);
        known = rate;
      }
    }
  }

  /** A lease of the fleet's budget was refused while no hold was in force. */
  void refused() {
    heldBack = true;
  }

  /** A response carried a quota or a count: the server's numbers govern again. */
  void counted() {
    active = false;
  }

  /**
   * A 429 without a count to the request sent at {@code sent} (wall), held for {@code holdNanos}
   * ({@code window}: longer than maxWait; {@code told}: by a {@code Retry-After}); {@code
   * commits} requests sent in {@code elapsedNanos} since first contact. Returns the rate to set,
   * or null to keep the fleet's.
   */
  @Nullable RefillRate throttled(Instant sent, long holdNanos, boolean window, long commits,
      long elapsedNanos, boolean told, Instant wall) {
    if (key == null || (!told && !active)) {
      return null;
    }
    active = true;
    if (!told) {
      // A bare 429 says nothing of the pace (a spent window answers every request so until its
      // end): the fleet's budget is empty and held, its rate stays.
      return null;
    }
    double hold = Math.max(1, holdNanos);
    double perHold = window ? 0 : SECOND / hold;
    double rate;
    if (known == null) {
      double ceiling = instances * (double) Math.max(1, commits) * SECOND
          / Math.max(1, elapsedNanos + hold);
      rate = window ? ceiling : Math.min(ceiling, perHold);
    } else if (!sent.isBefore(known.learnedAt())) {
      rate = Math.max(CUT * perSecond(known), perHold);
      cut = true;
    } else {
      return null; // the same overshoot: the rate was set since this request was sent
    }
    return set(rate, wall);
  }

  /** An admitted response at {@code wall}: returns a raised rate to set, or null. */
  @Nullable RefillRate admitted(Instant wall) {
    if (!active() || known == null || !heldBack) {
      return null;
    }
    double rate = perSecond(known);
    long cycle = (long) Math.max(MIN_CYCLE_NANOS, Math.min(1e15, CYCLE_UNITS * SECOND / rate));
    if (Duration.between(known.learnedAt(), wall).toNanos() < cycle) {
      return null;
    }
    return set(rate * (1 + (cut ? RAISE : FIRST_RAISE)), wall);
  }

  /**
   * The count a 429 implies: 0 left at {@code observedAt}; with a quota of {@value #BURST} and no
   * reset, a store keeps it as a bucket refilled at the fleet's rate.
   */
  static ServerCount count(Instant observedAt) {
    return new ServerCount(0, observedAt, java.util.Optional.empty(),
        java.util.OptionalLong.of(BURST), java.util.Optional.of(WINDOW));
  }

  /** Whether {@code signal} carries no number of the server's. */
  static boolean uncounted(RateLimitSignal signal) {
    return signal.limits().isEmpty() && signal.policies().isEmpty();
  }

  private @Nullable RefillRate set(double rate, Instant wall) {
    double r = Math.max(MIN_RATE, rate);
    double period = Math.min(Duration.ofDays(365).toNanos(), PERIOD_UNITS * SECOND / r);
    RefillRate told;
    try {
      told = new RefillRate(PERIOD_UNITS, Duration.ofNanos(Math.max(1, (long) period)), wall);
    } catch (IllegalArgumentException e) {
      return null;
    }
    known = told;
    heldBack = false;
    return told;
  }

  private static double perSecond(RefillRate rate) {
    return rate.units() * SECOND / rate.period().toNanos();
  }
}
