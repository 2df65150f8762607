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
 *   <li>The fleet's rate starts, at the first 429, as one instance's learner starts its own.
 *       A {@code Retry-After} that ends a window (further off than the time the server took to
 *       be spent, and than a second, or longer than maxWait): from what the fleet sent, this
 *       instance's requests since first contact over that time and the hold, times the
 *       instances seen (an upper bound: a burst spent stored capacity), at least one request
 *       per short hold. A shorter one (a bucket's next token, rounded up to a second) or a bare
 *       429: at one request per hold, which says only that it is not too fast.
 *   <li>A 429 to a request sent after the last cut's hold ended answers the rate in force: it
 *       goes back to nine tenths of the last rate that drew no 429 (the raise that overshot is
 *       undone), or to half a rate no raise has shown good yet (not below one request per short
 *       hold). A 429 to a request sent before belongs to an overshoot already answered.
 *   <li>Once the rate has held someone back (a lease refused without a hold) and the fleet is
 *       admitted at half the rate or more, an admitted response raises it once per
 *       {@value #CYCLE_UNITS} units at that rate (at least 100 ms, at most 4 s): by 1/64 after a
 *       cut, doubling with every raise without a 429 between, up to doubling the rate. A budget
 *       that learned too low recovers within seconds, multiplicatively; near the server's limit
 *       raises stay small, so one 429 answers several.
 *   <li>A rate a 429 answered is not tried again at once: a cut at a 429 to a request sent
 *       after the raise that set the rate in force (by this instance, or read from the store: a
 *       rate less than {@value #CUT_FROM} below the raise this instance knew) keeps the rate
 *       that drew the 429 as a <b>ceiling</b>, and raises stop one smallest raise below it
 *       while it holds: {@value #CEILING_FIRST_SECONDS} s, twice as long
 *       as the last after a 429 at it (within two smallest raises below it), up to
 *       {@value #CEILING_MAX_SECONDS} s. A 429 further below a ceiling in force lowers it by at
 *       most {@value #CEILING_LOWER_STEPS} smallest raises: a run of 429s that say nothing of
 *       the fleet's pace (another client spending the server for a moment, whenever it comes)
 *       would otherwise walk the ceiling down to wherever the rate was when each came. A raise
 *       cycle above a ceiling that lapsed, without a 429, forgets it.
 *   <li>The first rate is a floor until a 429 answers it: nothing has shown it too high. The
 *       instance that set it raises it once per that first hold (or per {@value #CYCLE_UNITS}
 *       units at the rate, if sooner; at least 100 ms, at most 4 s): by doubling after a bare 429
 *       or a short {@code Retry-After} (one request per hold says nothing of the server), by 1/8
 *       after a {@code Retry-After} that ended a window (the first rate is then what the fleet
 *       sent, an upper bound). So does
 *       every instance that first reads it with the fleet's first hold (by doubling if it is one
 *       request per that hold). A cut, its own or another instance's, ends it.
 *   <li>An instance that drew no 429 itself leases from the budget too once a store answer shows
 *       the server's key held with no count in it (another instance drew a 429 without one).
 *       At first contact most instances draw none (the fleet's first 429 holds them all), and
 *       without it they would all go at once when that hold ends.
 *   <li>A bare 429 to the first requests sent after the fleet's latest hold ended (within that
 *       hold's length of its end, nothing admitted since) doubles the fleet's hold
 *       ({@link #backedOff}): the fleet backs off from its own hold as one instance does from
 *       its own, not from each instance's first step.
 *   <li>Units sent from the budget are told to the store at once ({@code spent}): the bucket
 *       holds a unit or two, and no server count ever settles them.
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
  /** The cut below the last rate that drew no 429. */
  private static final double CUT = 0.9;
  /** The cut of a rate no cycle without a 429 has shown good (the first, or one just cut). */
  private static final double HALVE = 0.5;
  /** The first raise after a cut; each raise without a cut between doubles it. */
  private static final double MIN_STEP = 1.0 / 64;
  /** The first raise until the fleet first overshot (the first rate is a lower bound). */
  private static final double FIRST_STEP = 1.0 / 8;
  /** The largest raise: the rate doubles. */
  private static final double MAX_STEP = 1;
  static final long CYCLE_UNITS = 8;
  private static final long MIN_CYCLE_NANOS = 100_000_000L;
  /** A rate is raised at least this often while it holds the fleet back (however slow). */
  private static final long MAX_CYCLE_NANOS = 4_000_000_000L;
  /** How long a ceiling first holds (seconds); doubled by each 429 at it, up to the most. */
  static final long CEILING_FIRST_SECONDS = 32;
  /** The longest a ceiling holds (seconds). */
  static final long CEILING_MAX_SECONDS = 600;
  /** The most a 429 below a ceiling in force lowers it, in smallest raises. */
  static final long CEILING_LOWER_STEPS = 2;
  /** A lower rate read from the store is a cut of the rate known if by less than this share. */
  static final double CUT_FROM = 0.4;
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
  /** Admitted responses this instance saw since the rate was last set. */
  private long admittedSince;
  /** Admitted responses this instance saw since the rate was last cut (or first set). */
  private long admittedSinceCut;
  /**
   * The rate was raised (here or by another instance, each on admitted responses) since it was
   * last cut: a bare 429 then answers that raise, whatever this instance saw admitted.
   */
  private boolean raisedSinceCut;
  /** Whether a store answer was read; whether one showed another instance. */
  private boolean heard;
  private boolean othersEver;
  /** When the store first answered, or last showed another instance. */
  private long othersSeenNanos;
  /** How long an instance sees no other before it counts as alone (instances started together). */
  private static final long ALONE_AFTER_NANOS = 1_000_000_000L;
  /**
   * How long after a reset announced since the others were last seen an instance that saw others
   * counts as alone: instances waiting out a window come back at its reset, which servers give in
   * whole seconds.
   */
  private static final long BACK_AFTER_RESET_NANOS = 2_000_000_000L;
  /** The earliest reset a count announced for after the others were last seen, or none. */
  private long resetSinceOthersNanos = Long.MIN_VALUE;
  /** A lease was refused by the rate (not a hold) since the rate was last raised. */
  private boolean heldBack;
  /** The next raise, as a share of the rate: doubles with every raise, back down at a cut. */
  private double step = FIRST_STEP;
  /** The rate before the last raise (requests per second), 0 after a cut. */
  private double beforeRaise;
  /** The longest raise cycle: the first rate's hold while it is a floor, else MAX_CYCLE. */
  private long cycleCapNanos = MAX_CYCLE_NANOS;
  /** A 429 to a request sent before this belongs to an overshoot already answered. */
  private @Nullable Instant answeredUntil;
  /** The rate a 429 answered (requests per second), which raises stay below; 0: none. */
  private double ceiling;
  /** Until when the ceiling holds (wall time); null: none. */
  private @Nullable Instant ceilingUntil;
  /** How long the next ceiling holds: doubles with every 429 at the ceiling. */
  private long ceilingHoldNanos = CEILING_FIRST_SECONDS * 1_000_000_000L;

  /** Two holds whose ends are this close are the same hold (read back, rounded). */
  private static final long SAME_HOLD_NANOS = 5_000_000L;
  /** The end (engine time) of the latest hold of the fleet this instance set or read; none. */
  private long holdEndNanos = Long.MIN_VALUE;
  /** Its length, from when this instance set or first read it. */
  private long holdLengthNanos;
  /** A response to a request sent after that hold ended was admitted. */
  private boolean admittedAfterHold;

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

  /**
   * Whether the store's answers have shown no instance but this one for a second (since this
   * instance first heard from it, or last saw another): the fleet is this instance, which then
   * paces as without a store. Instances started together each see only themselves at first.
   */
  boolean alone(long now) {
    if (!heard || instances > 1 || Time.sub(now, othersSeenNanos) < ALONE_AFTER_NANOS) {
      return false;
    }
    // Others seen before and gone from the store's heartbeat may be waiting out the window (a
    // sliding window's reset is the end of its fixed window: the others' own counts said it was
    // spent until then): they come back at its reset, and take what the store lends from then
    // on. Alone, this instance would go on its own pace as well, and two requests would go for
    // the one unit back. It counts as alone once a reset announced after they were last seen is
    // past (a server that gives no reset: after a second, as ever).
    return !othersEver || resetSinceOthersNanos == Long.MIN_VALUE
        || Time.sub(now, resetSinceOthersNanos) >= BACK_AFTER_RESET_NANOS;
  }

  /**
   * A count of this instance announced a reset at {@code resetNanos} (engine time): the earliest
   * one after the others were last seen is when they come back, if they wait for it.
   */
  void resetHeard(long resetNanos) {
    if (resetNanos == Long.MIN_VALUE || Time.sub(resetNanos, othersSeenNanos) <= 0) {
      return;
    }
    if (resetSinceOthersNanos == Long.MIN_VALUE
        || Time.sub(resetNanos, resetSinceOthersNanos) < 0) {
      resetSinceOthersNanos = resetNanos;
    }
  }

  /** The instances the store's last answer showed (at least 1). */
  int instances() {
    return instances;
  }

  /** Whether no store answer has shown another instance yet (alone so far, maybe not for long). */
  boolean noOtherYet() {
    return !othersEver;
  }

  /**
   * Reads what a store answer at {@code now} says of the fleet: its instances, and the fleet's
   * rate (unless learned at an implausible time: see {@link Fleet#plausibleLearnedAt}).
   */
  void seen(SharedQuota state, long now, Fleet fleet) {
    if (!heard || state.instances() > 1) {
      othersSeenNanos = now;
      resetSinceOthersNanos = Long.MIN_VALUE;
    }
    if (state.instances() > 1) {
      othersEver = true;
    }
    heard = true;
    instances = Math.max(1, state.instances());
    if (state.heldAt(fleet.settings.wallClock.instant())) {
      holdSeen(fleet.nanos(state.holdUntil().get(), now), now);
      if (key != null && !state.key().equals(key) && state.count().isEmpty()) {
        // The server's key held with no count in it: another instance drew a 429 without a
        // count, and set the fleet's budget. This one leases from it too, though it drew no 429
        // itself: else, at the hold's end, every instance that did not went at once.
        active = true;
      }
    }
    if (state.key().equals(key) && state.refillRate().isPresent()
        && fleet.plausibleLearnedAt(state.refillRate().get().learnedAt())) {
      RefillRate rate = state.refillRate().get();
      if (known == null || !rate.learnedAt().isBefore(known.learnedAt())) {
        if (known != null && cutFrom(perSecond(rate), perSecond(known))
            && answersRaise(rate.learnedAt())) {
          // Another instance cut, at a 429, the raise this one knew: that rate is the fleet's
          // ceiling here too (most raises are made by an instance that did not draw the 429).
          ceilingAt(perSecond(known), rate.learnedAt());
        }
        if ((known == null || perSecond(rate) < perSecond(known))
            && state.holdUntil().isPresent()) {
          // Another instance cut the rate at a 429 (a cut comes with its hold; a lower rate
          // without one is a raise set from an older rate): requests sent before the hold ends
          // belong to the same overshoot, which this instance must not cut again. So do they when
          // this instance first reads the fleet's rate with its hold (another instance set it at
          // a 429 this one did not draw).
          Instant held = state.holdUntil().get();
          cutSeen(held.isAfter(rate.learnedAt()) ? held : rate.learnedAt());
        } else if (known != null && perSecond(rate) > perSecond(known)) {
          beforeRaise = perSecond(known);
          raisedSinceCut = true;
        }
        if (known == null && holdEndNanos != Long.MIN_VALUE) {
          // The first rate this instance sees, set at the fleet's first hold: nothing has shown
          // it too high. It is a floor here too, raised once per that hold: by doubling if it is
          // one request per hold (the least the fleet sends, which says nothing of the server),
          // else by 1/8. Only the instance that set it raised it so, and the others' raises of
          // 1/64 or 1/8 each restarted its cycle: a fleet all leasing from its budget stayed near
          // the floor for seconds.
          step = perSecond(rate) * holdLengthNanos <= SECOND * 1.01 ? MAX_STEP : FIRST_STEP;
          cycleCapNanos = Math.max(MIN_CYCLE_NANOS, Math.min(MAX_CYCLE_NANOS, holdLengthNanos));
        }
        if (known == null || !rate.equals(known)) {
          admittedSince = 0;
        }
        known = rate;
      }
    }
  }

  /**
   * The fleet is held until {@code untilNanos} (engine time), as this instance set it or read it
   * from the store at {@code now}: the latest such hold is the one a bare 429 backs off from.
   */
  void holdSeen(long untilNanos, long now) {
    if (untilNanos <= now || (holdEndNanos != Long.MIN_VALUE
        && Time.sub(untilNanos, holdEndNanos) <= SAME_HOLD_NANOS)) {
      return;
    }
    holdEndNanos = untilNanos;
    holdLengthNanos = Time.sub(untilNanos, now);
    admittedAfterHold = false;
  }

  /** A response to a request sent at {@code sentNanos} (engine time) was admitted. */
  void admittedSent(long sentNanos) {
    if (holdEndNanos != Long.MIN_VALUE && sentNanos >= holdEndNanos) {
      admittedAfterHold = true;
    }
  }

  /**
   * Returns the end of the fleet's hold after a bare 429 (no count, no {@code Retry-After}) to a
   * request sent at {@code sentNanos}, which this instance's own backoff would hold until
   * {@code untilNanos}: a 429 to the first requests sent after the fleet's latest hold ended
   * (within that hold's length of its end, nothing admitted since) answers that hold, and the
   * fleet backs off from it, twice as long (at most {@code capNanos}), as one instance backs off
   * from its own. Each instance's own backoff starts at its own first 429: with the instances
   * taking turns to draw them, the fleet was held for the first step of a backoff again and again
   * (a fixed window spent 40 s before its end: one hold of a second after another, each ending
   * with a few instances' requests refused together).
   */
  long backedOff(long sentNanos, long now, long untilNanos, long capNanos) {
    if (holdEndNanos == Long.MIN_VALUE || admittedAfterHold || sentNanos < holdEndNanos
        || Time.sub(sentNanos, holdEndNanos) > holdLengthNanos) {
      return untilNanos;
    }
    long doubled = Math.min(capNanos, Time.mul(holdLengthNanos, 2));
    return Math.max(untilNanos, Time.add(now, doubled));
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
    if (key == null) {
      return null;
    }
    active = true;
    double hold = Math.max(1, holdNanos);
    double perHold = window ? 0 : SECOND / hold;
    double rate;
    boolean first = known == null;
    // A told hold ends a window when it is further off than the time the server took to be
    // spent (and than a second), or longer than maxWait: what the fleet sent over that time is
    // about the window's quota. A shorter one (a bucket's next token, rounded up to a second)
    // says nothing of the pace but that one request per hold is not too fast.
    boolean windowEnd = window || hold > Math.max(SECOND, elapsedNanos);
    if (!told && known != null && admittedSinceCut == 0 && !raisedSinceCut) {
      // A bare 429 with nothing admitted since the rate last changed: the server is spent (a
      // window waiting for its end), which says nothing of the pace; the budget is held. Not
      // after a raise, this instance's or another's: a raise is made on admitted responses, and
      // with the fleet held by its first 429 most instances see few of their own (a rate raised
      // to 32 a second against a server giving 1.7 was never cut).
      return null;
    }
    if (known == null && (!told || !windowEnd)) {
      // A bare 429's hold is the pacer's own backoff, and a short Retry-After says when the next
      // unit is back: the fleet starts at one request per hold, as one instance does, not at
      // what the whole fleet sent before it (a bucket's first burst spent what it had stored:
      // 50 instances started at 40 a second against a bucket giving 1.7, and halved once per
      // hold, each hold ending in a volley of 429s).
      rate = SECOND / hold;
    } else if (known == null) {
      double ceiling = instances * (double) Math.max(1, commits) * SECOND
          / Math.max(1, elapsedNanos + hold);
      rate = Math.max(ceiling, perHold);
    } else if (answeredUntil == null || !sent.isBefore(answeredUntil)) {
      // The rate overshot: back below the last rate that drew no 429 (the raise that overshot
      // is undone), and raises start small again. A bare 429's hold says nothing of the
      // server: no floor of one request per hold then.
      double last = perSecond(known);
      rate = Math.max(beforeRaise > 0 ? CUT * Math.min(last, beforeRaise) : HALVE * last,
          told ? perHold : 0);
      if (answersRaise(sent)) {
        ceilingAt(last, wall);
      }
    } else {
      return null; // the same overshoot: the rate was cut since this request was sent
    }
    cutSeen(wall.plusNanos(holdNanos));
    if (first) {
      // The first rate is a floor, not a measure: a bare 429's is one request per the pacer's own
      // backoff. Raised once per that hold, by doubling (by 1/8 after a Retry-After, whose first
      // rate is what the fleet sent), until a 429 answers it. Before, the first rate was raised as
      // a cut one (1/64, once per 4 s): a fleet held to one request a second by a bucket that
      // gives 46 got a tenth of what its instances got without the store.
      step = told && windowEnd ? FIRST_STEP : MAX_STEP;
      cycleCapNanos = Math.max(MIN_CYCLE_NANOS, Math.min(MAX_CYCLE_NANOS, holdNanos));
    }
    return set(rate, wall);
  }

  /** A cut until {@code until}: 429s to requests sent before it answer the same overshoot. */
  private void cutSeen(Instant until) {
    if (answeredUntil == null || until.isAfter(answeredUntil)) {
      answeredUntil = until;
    }
    step = MIN_STEP;
    cycleCapNanos = MAX_CYCLE_NANOS;
    beforeRaise = 0;
    admittedSinceCut = 0;
    raisedSinceCut = false;
  }

  /**
   * Whether a 429 to a request sent at {@code at} (read from the store: a cut made at {@code at})
   * answered the raise that set the rate in force: the rate was raised since it was last cut,
   * and the request went after that raise.
   */
  private boolean answersRaise(Instant at) {
    return known != null && beforeRaise > 0 && !at.isBefore(known.learnedAt());
  }

  /**
   * Whether the fleet's rate read as {@code to} after {@code from} (requests per second) is
   * another instance's cut of {@code from}: lower by less than {@value #CUT_FROM} of it (a cut
   * takes off a tenth of the rate before the raise that overshot, a third at most after the
   * raises doubled to a half). A halving, or a larger drop (the rate this instance knew was not
   * the one cut), says nothing of where the limit is.
   */
  static boolean cutFrom(double to, double from) {
    return to < from && to > (1 - CUT_FROM) * from;
  }

  /**
   * A 429 at {@code at} answered the rate {@code rate} (requests per second), raised since the
   * last cut. With no ceiling in force it is the ceiling, held for the first hold, or twice as
   * long as the last if it came at the one that lapsed (within two smallest raises below it). A
   * 429 at the ceiling in force holds it twice as long as the last; one further below lowers it
   * by at most {@value #CEILING_LOWER_STEPS} smallest raises and holds it as long as the last.
   */
  private void ceilingAt(double rate, Instant at) {
    boolean holds = ceiling > 0 && ceilingUntil != null && at.isBefore(ceilingUntil);
    if (ceiling > 0 && rate >= ceiling * (1 - 2 * MIN_STEP)) {
      ceilingHoldNanos = Math.min(CEILING_MAX_SECONDS * 1_000_000_000L, ceilingHoldNanos * 2);
    } else if (!holds) {
      ceilingHoldNanos = CEILING_FIRST_SECONDS * 1_000_000_000L;
    }
    if (!holds) {
      ceiling = rate;
    } else if (rate < ceiling) {
      ceiling = Math.max(rate, ceiling * (1 - CEILING_LOWER_STEPS * MIN_STEP));
    }
    ceilingUntil = at.plusNanos(ceilingHoldNanos);
  }

  /** An admitted response at {@code wall}: returns a raised rate to set, or null. */
  @Nullable RefillRate admitted(Instant wall) {
    admittedSinceCut++;
    if (!active() || known == null || !heldBack) {
      return null;
    }
    double rate = perSecond(known);
    long cycle = (long) Math.max(MIN_CYCLE_NANOS,
        Math.min(cycleCapNanos, CYCLE_UNITS * SECOND / rate));
    long since = Duration.between(known.learnedAt(), wall).toNanos();
    admittedSince++;
    if (since < cycle) {
      return null;
    }
    if (instances * (double) admittedSince * SECOND / Math.max(1, since) < rate / 2) {
      // The fleet is admitted at well under the rate: something else holds it back (each
      // instance's own pace, its callers); a higher rate would say nothing the 429s tested.
      return null;
    }
    double raised = rate * (1 + step);
    if (ceiling > 0 && ceilingUntil != null) {
      if (wall.isBefore(ceilingUntil)) {
        double cap = ceiling * (1 - MIN_STEP);
        if (rate >= cap) {
          return null;
        }
        raised = Math.min(raised, cap);
      } else if (rate >= ceiling) {
        // A raise cycle above a ceiling that lapsed, without a 429: it was not the limit.
        ceiling = 0;
        ceilingUntil = null;
        ceilingHoldNanos = CEILING_FIRST_SECONDS * 1_000_000_000L;
      }
    }
    beforeRaise = rate;
    raisedSinceCut = true;
    step = Math.min(MAX_STEP, step * 2);
    return set(raised, wall);
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
    admittedSince = 0;
    return told;
  }

  private static double perSecond(RefillRate rate) {
    return rate.units() * SECOND / rate.period().toNanos();
  }
}
