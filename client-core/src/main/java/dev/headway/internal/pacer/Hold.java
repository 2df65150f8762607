package dev.headway.internal.pacer;

/**
 * Owns how cautious one partition is after first contact and after throttled responses: the
 * hold (no request before a time after a 429 or 503), probing (only a few requests in flight
 * until a response says what the server thinks) and the ramp after a hold the server did not
 * explain (slow start). Guarded by the partition's monitor, except the hold's end, which is
 * volatile (read when a waiter wakes).
 */
final class Hold {
  /** The decider named when a throttled response holds the partition back. */
  static final String THROTTLED = "throttled";

  /** No request is sent before this after a throttled response; Long.MIN_VALUE if none. */
  private volatile long untilNanos = Long.MIN_VALUE;
  /**
   * Only {@code probes} requests may be in flight until a response to a request sent at or
   * after {@link #probeFromNanos} says what the server thinks: on first contact, and after a
   * hold.
   */
  private boolean probing = true;
  private long probeFromNanos = Long.MIN_VALUE;
  /**
   * After a hold the server explained with no quota (Retry-After only, or nothing): at most this
   * many permits in flight, one more per successful response sent after the hold (slow start),
   * unbounded again once no request was throttled for as long as the hold lasted.
   * Integer.MAX_VALUE when not ramping.
   */
  private int admitCap = Integer.MAX_VALUE;
  private long rampFromNanos;
  private long rampUntilNanos;
  private int consecutiveThrottles;
  /** When the last throttle that counted arrived; a 429 to a request sent by then: the same. */
  private long throttledAtNanos = Long.MIN_VALUE;
  /** Whether the server ever answered (or the client declared what it may send). */
  private boolean heard;
  /**
   * Whether nothing came back yet: no response, no request that ended without one (a timeout, an
   * I/O error), no hold, nothing declared. Only read (see {@link #silent()}): it decides nothing
   * here. Volatile: read without the monitor; written once.
   */
  private volatile boolean silent = true;
  /** How long callers wait behind unanswered requests at least, once an answer came: 1 s. */
  static final long PATIENCE_FLOOR_NANOS = 1_000_000_000L;
  /**
   * Before any answer, how long callers wait behind the probes of first contact: 550 ms, a round
   * trip of half a second and its jitter. Past it, every caller behind them goes, however many
   * they are: a hanging server costs each of them 550 ms of waiting, which the adapters take off
   * the client's timeout ({@link BeforeAnyAnswer}), so they fail when they would without Headway.
   */
  static final long FIRST_PATIENCE_NANOS = 550_000_000L;
  /** The round trip of the last answer (sent to received); 0 before any. */
  private long roundTripNanos;
  /**
   * Where the end the hold waits for lies, when whole-second {@code Retry-After}s told it:
   * after {@link #toldAfterNanos}, at or before {@link #untilNanos}; Long.MIN_VALUE when the
   * hold was not told so.
   */
  private long toldAfterNanos = Long.MIN_VALUE;
  /** The bound on requests in flight while the server has said nothing of its limits. */
  private final UnknownServerRamp ramp = new UnknownServerRamp();

  /** A second: the unit a {@code Retry-After} in whole seconds is rounded to. */
  static final long ONE_SECOND_NANOS = 1_000_000_000L;

  /**
   * Whether whole-second {@code Retry-After}s told the hold's end: it is then already the latest
   * moment they allow, up to a second late, a spread of its own.
   */
  boolean toldInWholeSeconds() {
    return toldAfterNanos != Long.MIN_VALUE;
  }

  /** Returns the end of the hold, or Long.MIN_VALUE. */
  long untilNanos() {
    return untilNanos;
  }

  /** Whether a request committed for {@code sendAtNanos} is now held past that time. */
  boolean beyond(long sendAtNanos) {
    return untilNanos > sendAtNanos;
  }

  /** The client declared what it may send: first contact is no unknown, nothing to probe. */
  void known() {
    heardAnything();
    probing = false;
    heard = true;
    ramp.end();
  }

  /** A response carried a number (a quota or a count) or was throttled: no more unknown. */
  void limitsHeard() {
    ramp.end();
  }

  /**
   * Whether nothing says the server limits anything: first contact with no answer so far, or
   * answers with no number and no 429 while the requests in flight ramp up; nothing declared.
   */
  boolean firstContact() {
    return !heard || ramp.active();
  }

  /**
   * Whether nothing came back from the server yet: no response, no request that ended without
   * one (a timeout, an I/O error), no hold (a server's, or the fleet's), nothing declared. A
   * caller held while so is held only for lack of an answer (the probes of first contact), never
   * by a limit anybody stated: the adapters take that time off the client's timeout
   * ({@link BeforeAnyAnswer}).
   */
  boolean silent() {
    return silent;
  }

  /** Something came back from the server, or was declared: no longer {@link #silent()}. */
  private void heardAnything() {
    if (silent) {
      silent = false; // one volatile write per partition, not one per response
    }
  }

  private void roundTrip(long sentNanos, long now) {
    if (sentNanos <= now) {
      roundTripNanos = now - sentNanos;
    }
  }

  /** Returns the round trip of the last answer (sent to received); 0 before any. */
  long roundTripNanos() {
    return roundTripNanos;
  }

  /**
   * How long callers wait behind the requests in flight when probing or ramping keeps them back:
   * four round trips of the last answer, at least {@link #PATIENCE_FLOOR_NANOS}; before any
   * answer, {@link #FIRST_PATIENCE_NANOS}. Past it, what is in flight is not waited for: a
   * request that never answers (a hanging server, a permit its holder never closed) costs the
   * callers behind it this long, not their whole {@code maxWait} (nor, before any answer, more
   * than a small part of a client's read timeout).
   */
  long patienceNanos() {
    return heard ? Math.max(PATIENCE_FLOOR_NANOS, Time.mul(roundTripNanos, 4))
        : FIRST_PATIENCE_NANOS;
  }

  /**
   * A request sent at {@code sentNanos} ended with no response (a timeout, an I/O error): on
   * first contact that is an answer too, and the probes no longer hold the others back.
   */
  void unanswered(long sentNanos) {
    heardAnything();
    if (!heard && probing && sentNanos >= probeFromNanos) {
      probing = false;
    }
  }

  /**
   * Whether a new request must look again later rather than go, with {@code permitsInFlight}
   * in flight: probing and the probes are out, or ramping and the cap is reached. The caller
   * decides how long that holds: past the {@linkplain #patienceNanos() patience} the requests in
   * flight are not waited for (before any answer, every caller behind the probes then goes).
   */
  boolean closed(int permitsInFlight, int probes) {
    return (probing && permitsInFlight >= probes) || permitsInFlight >= admitCap;
  }

  /**
   * {@link #closed(int, int)} at {@code nowNanos}: a request the probes of first contact hold
   * back still waits when the ramp after them decides whether anybody needs its bound. The
   * probes are waited for until the {@linkplain #patienceNanos() patience} ends, then not at all.
   */
  boolean closed(int permitsInFlight, int probes, long nowNanos) {
    boolean closed = closed(permitsInFlight, probes);
    if (closed && probing) {
      ramp.heldBack(nowNanos);
    }
    return closed;
  }

  /**
   * Counts a throttled response to a request sent at {@code sentNanos}, received at
   * {@code now}; returns how many came in a row. A 429 to a request sent before (or as) the
   * last one counted arrived is the same overshoot (requests in flight together, refused together), not
   * one more in a row: it does not lengthen the backoff.
   */
  int throttled(long sentNanos, long now) {
    heard = true;
    heardAnything();
    roundTrip(sentNanos, now);
    if (consecutiveThrottles == 0 || sentNanos > throttledAtNanos) {
      consecutiveThrottles++;
      throttledAtNanos = now;
    }
    return consecutiveThrottles;
  }

  /**
   * Holds the partition for {@code holdNanos} from {@code now} (never shortening a hold) and
   * probes after it; {@code unexplained}: the server gave no quota, so ramp up from
   * {@code probes} permits for as long again.
   */
  void holdFor(long now, long holdNanos, boolean unexplained, int probes) {
    long until = Time.add(now, holdNanos);
    if (until > untilNanos) {
      untilNanos = until;
      toldAfterNanos = Long.MIN_VALUE;
    }
    startAfterHold(holdNanos, unexplained, probes);
  }

  /**
   * Holds the partition until the end a whole-second {@code Retry-After} of
   * {@code retryNanos} told, in the answer (received at {@code now}) to a request sent at
   * {@code sentNanos}, from a server that gave no quota. Whole seconds are an interval: the
   * server counted the request between its send and its answer, and rounded the time left up,
   * so the end lies after {@code sentNanos + retryNanos - 1 s} and at or before
   * {@code now + retryNanos}. While the hold waits for an end so told, each further such answer
   * whose interval overlaps tells the same end, and the hold ends at the earliest moment both
   * allow (the latest end either allows is past it): it may end sooner than it was set to.
   * Answers in flight together straddling a whole second narrow the end by up to a second.
   */
  void holdTold(long sentNanos, long now, long retryNanos, int probes) {
    long after = Time.sub(Time.add(Math.min(sentNanos, now), retryNanos), ONE_SECOND_NANOS);
    long until = Time.add(now, retryNanos);
    if (toldAfterNanos != Long.MIN_VALUE && untilNanos > now && after < untilNanos
        && toldAfterNanos < until) {
      toldAfterNanos = Math.max(toldAfterNanos, after);
      untilNanos = Math.min(untilNanos, until);
      probeFromNanos = Math.min(probeFromNanos, untilNanos);
      rampFromNanos = Math.min(rampFromNanos, untilNanos);
      return;
    }
    if (until > untilNanos) {
      untilNanos = until;
      toldAfterNanos = after;
    }
    startAfterHold(retryNanos, true, probes);
  }

  private void startAfterHold(long holdNanos, boolean unexplained, int probes) {
    heardAnything(); // a hold (a server's, or the fleet's from the store) is news of the server
    long end = untilNanos;
    probing = true;
    probeFromNanos = end;
    if (unexplained) {
      admitCap = Math.max(1, probes);
      rampFromNanos = end;
      rampUntilNanos = Time.add(end, holdNanos);
    }
  }

  /**
   * Lifts the hold: the check of a long block sent at {@code sentNanos} during it succeeded (see
   * {@link LongBlocks}). Admission ramps up from the probes again, for {@code rampNanos} at most.
   */
  void lift(long sentNanos, long now, long rampNanos) {
    untilNanos = Long.MIN_VALUE;
    toldAfterNanos = Long.MIN_VALUE;
    probeFromNanos = Math.min(probeFromNanos, sentNanos);
    if (admitCap != Integer.MAX_VALUE) {
      rampFromNanos = Math.min(rampFromNanos, sentNanos);
      rampUntilNanos = Math.min(rampUntilNanos, Time.add(now, rampNanos));
    }
  }

  /**
   * Whether a new request must look again later, with {@code permitsInFlight} in flight, because
   * the server said nothing of its limits yet and the ramp's bound is reached
   * ({@link UnknownServerRamp}).
   */
  boolean rampClosed(int permitsInFlight, long nowNanos) {
    return ramp.active() && ramp.closed(permitsInFlight, nowNanos);
  }

  /**
   * Records an admitted response with no number in it, once the probes of first contact were
   * answered: the first starts the ramp from {@code probes}, unless a number or a 429 came
   * first; each grows it. A caller the bound turned away looks again within
   * {@code recheckNanos}.
   */
  void admittedUnknown(int probes, long nowNanos, long recheckNanos) {
    if (!probing) {
      ramp.start(probes);
      ramp.admitted(nowNanos, recheckNanos);
    }
  }

  /** Records a response that was not throttled to a request sent at {@code sentNanos}. */
  void answered(long sentNanos, int status, long now) {
    heard = true;
    heardAnything();
    roundTrip(sentNanos, now);
    if (admitCap != Integer.MAX_VALUE && status < 400 && sentNanos >= rampFromNanos) {
      admitCap = now >= rampUntilNanos ? Integer.MAX_VALUE : admitCap + 1;
    }
    if (status < 400) {
      consecutiveThrottles = 0;
    }
    if (probing && sentNanos >= probeFromNanos) {
      probing = false;
    }
  }
}
