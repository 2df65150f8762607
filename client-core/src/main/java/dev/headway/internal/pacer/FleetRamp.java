package dev.headway.internal.pacer;

import dev.headway.RateLimitSignal;

/**
 * The bound on requests in flight to a server that has said nothing of its limits yet, kept for
 * the whole fleet as one instance keeps it for itself ({@link UnknownServerRamp}). One instance
 * keeps at most {@code probes + sqrt(2 x admitted)} in flight, so that a bucket no header
 * describes runs dry with about {@code sqrt(2Q)} requests refused; {@code n} instances each
 * keeping that bound for themselves have {@code n} times as many in flight when it runs dry, and
 * every one of them discovers the limit with its own 429s (50 instances of 4 callers drew 200
 * 429s from a window of 100 in the first tenth of a second). So an instance that sees {@code n}
 * instances in the store keeps to its share of a bound for the fleet: {@code (probes +
 * sqrt(2 x sqrt(n) x A)) / n}, {@code A = n x admitted} being about the fleet's admitted
 * responses ({@code admitted}: this instance's own). The fleet's bound grows by about
 * {@code sqrt(n)} per round trip, between one instance's (1: a bucket of {@code Q} runs dry with
 * {@code sqrt(2Q)} in flight, but {@code n} instances of {@code c} callers meet their demand
 * only after {@code n x c} round trips, and a server that never refuses them costs them most of
 * a short run) and {@code n} instances' each on its own ({@code n}: {@code sqrt(2nQ)} in flight
 * when it runs dry): it runs dry with {@code sqrt(2 sqrt(n) Q)} in flight, and the fleet meets
 * its demand in {@code sqrt(n) x c} round trips. The rule: the fleet's bound is the geometric
 * mean of the two, in its overshoot and in its ramp's length alike. A share of less than one
 * request in flight is one request at a time, after a gap drawn
 * at random up to twice {@code 1 / share} round trips (one every {@code 1 / share} round trips
 * on average, the instances not in step), so that the fleet's requests per round trip stay
 * within the bound.
 *
 * <p>It ends, for good, at the first number (a quota or a count), the first 429 (this
 * instance's, or a store answer carrying a hold, a count or a rate: the hold, the learner and
 * the fleet's budget take over), or once this instance's share came back in admitted responses
 * without the bound holding anyone back (the callers need no more). Alone, or before a store
 * answer has shown another instance, an instance keeps only its own bound. Part of a
 * {@link FleetReport}; under the partition's monitor. It starts, as one instance's bound does,
 * with the first admitted response without a number: this instance's own, or another
 * instance's probe of first contact that this instance waited for ({@link #fleetProbed}: it then
 * sends no probes of its own; before, every instance let go by that answer sent its own at once).
 */
final class FleetRamp {
  /** A caller held back looks again after at least this. */
  private static final long MIN_LOOK_NANOS = 1_000_000L;
  /** Before any answer, a round trip is taken for this. */
  private static final long FIRST_ROUND_TRIP_NANOS = 50_000_000L;

  private boolean ended;
  /** An admitted response without a number came (the probes of first contact go as ever). */
  private boolean started;
  /** Admitted responses with no number. */
  private long admitted;
  /**
   * Admitted responses of the fleet this instance knows of besides its own: 1 once another
   * instance's probe of first contact came back admitted without a number, else 0.
   */
  private long othersAdmitted;
  /** Admitted since the last check that the bound still holds someone back. */
  private long credit;
  /** The bound held a request back since that check. */
  private boolean bound;
  /** When this instance last sent while its share was below one request. */
  private long lastSentNanos = Long.MIN_VALUE;
  /** The gap before this instance's next request while its share is below one; -1: not drawn. */
  private long gapNanos = -1;

  /** The instances the store showed at the last look (at least 1). */
  private int instances = 1;
  private int probes = 1;

  /**
   * Reads a response: an admitted one without a number grows the bound; a number or a 429 ends
   * it.
   */
  void observed(RateLimitSignal signal) {
    if (ended) {
      return;
    }
    if (signal.throttled() || signal.status() == 429 || !FleetGuess.uncounted(signal)) {
      ended = true;
      return;
    }
    if (signal.status() >= 400) {
      return;
    }
    started = true;
    admitted++;
    if (++credit < Math.max(1, share())) {
      return;
    }
    credit = 0;
    if (!bound) {
      ended = true; // a share's worth came back and nobody waited: not needed
    }
    bound = false;
  }

  /**
   * Another instance's probe of first contact came back at {@code now} admitted without a
   * number (the store lent this instance units it had refused while the probe was out, and
   * still knows no count): the bound starts here as if this instance had seen that answer,
   * with the fleet's one admitted response, and this instance sends no probes of its own. Its
   * first request goes after a gap drawn as between two (the instances, all let go by the same
   * answer, do not all send at once).
   */
  void fleetProbed(long now) {
    if (ended || started) {
      return;
    }
    started = true;
    othersAdmitted = 1;
    lastSentNanos = now;
    gapNanos = -1;
  }

  /** The fleet was held (a 429 somewhere): the server said it limits; the bound ends. */
  void held() {
    ended = true;
  }

  /** Whether the bound may hold this instance back. */
  boolean active() {
    return started && !ended;
  }

  /**
   * Returns the earliest time, not before {@code now}, at which this instance may send one more
   * request with {@code inFlight} in flight, as one of {@code instances} (more than one) with
   * {@code probes} probes of first contact each; {@code roundTripNanos} is the last answer's.
   * A share below one request spaces this instance's requests by a gap drawn from {@code jitter}
   * (uniform up to twice {@code 1 / share} round trips).
   */
  long earliest(int inFlight, int instances, int probes, long roundTripNanos, JitterSource jitter,
      long now) {
    this.instances = Math.max(1, instances);
    this.probes = Math.max(1, probes);
    double share = share();
    long rtt = roundTripNanos > 0 ? roundTripNanos : FIRST_ROUND_TRIP_NANOS;
    long look = Time.add(now, Math.max(MIN_LOOK_NANOS, rtt / 4));
    if (share >= 1) {
      if (inFlight + 1 <= share) {
        return now;
      }
      bound = true;
      return look;
    }
    if (inFlight > 0) {
      bound = true;
      return look;
    }
    if (lastSentNanos == Long.MIN_VALUE) {
      return now;
    }
    if (gapNanos < 0) {
      // Drawn at random, so that the instances, which all answered their probes together, do
      // not all send again together: on average one request per 1 / share round trips.
      long spacing = (long) Math.min(Long.MAX_VALUE / 8, rtt / share);
      gapNanos = 1 + jitter.below(Math.max(1, 2 * spacing));
    }
    long at = Time.add(lastSentNanos, gapNanos);
    if (at <= now) {
      return now;
    }
    bound = true;
    return at;
  }

  /** This instance sent a request at {@code sendAt}. */
  void sent(long sendAt) {
    if (!ended && (lastSentNanos == Long.MIN_VALUE || sendAt > lastSentNanos)) {
      lastSentNanos = sendAt;
      gapNanos = -1;
    }
  }

  /** This instance's share of the fleet's bound, in requests in flight. */
  private double share() {
    double fleetAdmitted = (double) instances * admitted + othersAdmitted;
    return (probes + Math.sqrt(2.0 * Math.sqrt(instances) * fleetAdmitted)) / instances;
  }
}
