package dev.headway.internal.pacer;

/**
 * Owns the bound on requests in flight to a server that has not said anything about its limits
 * yet: once the probes of first contact were answered, and until a response carries a number
 * (a quota or a count) or the server throttles, at most {@code probes + sqrt(2 x admitted)}
 * requests are in flight, {@code admitted} being the responses admitted so far. A server that
 * limits without saying so (a bucket no header describes) refuses every request in flight when
 * it runs dry: with this bound, a bucket that held {@code Q} runs dry with at most
 * {@code probes + sqrt(2Q)} in flight (16 for a bucket of 100, where 64 callers released at once
 * drew about 60 429s). Each round trip admits about as many as are in flight, so the bound grows
 * by about one per round trip, as TCP's congestion avoidance grows its window (doubling each
 * round trip, a slow start, would let the last round before the first 429 be up to half of
 * {@code Q}). The ramp ends, and the bound with it, at the first number or 429 (the hold, the
 * learner and the server's numbers take over), or once a round trip's worth of responses (as
 * many as the bound) came back without the bound holding anyone back: the callers need no
 * more. A caller the bound turned away looks again within a recheck interval, so one turned
 * away less than that ago is still held back, even if a fast server's answers came back before
 * it looked again. Part of the partition's {@link Hold}; under the partition's monitor.
 */
final class UnknownServerRamp {
  /** The probes of first contact; 0 until the ramp started. */
  private int probes;
  /** Responses admitted since the ramp started. */
  private long admitted;
  /** Admitted responses since the last check that the bound still holds someone back. */
  private long credit;
  /** Whether the bound held a request back since that check. */
  private boolean bound;
  /** When the bound (or the probes of first contact before it) last held a request back. */
  private long heldAtNanos = Long.MIN_VALUE;
  /** Whether the ramp bounds the requests in flight now. */
  private boolean active;
  /** Whether the ramp ran or may no longer run (it runs once per partition). */
  private boolean started;

  /** The probes of first contact were answered with no number: ramp up from {@code probes}. */
  void start(int probes) {
    if (!started) {
      started = true;
      active = true;
      this.probes = Math.max(1, probes);
    }
  }

  /** The server said something about its limits (a number, a 429): the bound ends for good. */
  void end() {
    started = true;
    active = false;
  }

  /** Whether the ramp bounds the requests in flight now. */
  boolean active() {
    return active;
  }

  /**
   * A request was held back at {@code nowNanos} while the probes of first contact were out: it
   * looks again within a recheck interval, as one the bound holds back does.
   */
  void heldBack(long nowNanos) {
    heldAtNanos = nowNanos;
  }

  /** Whether a new request must wait at {@code nowNanos} with {@code permitsInFlight} out. */
  boolean closed(int permitsInFlight, long nowNanos) {
    if (!active || permitsInFlight + 1 <= cap()) {
      return false;
    }
    bound = true;
    heldAtNanos = nowNanos;
    return true;
  }

  private double cap() {
    return probes + Math.sqrt(2.0 * admitted);
  }

  /**
   * Records an admitted response with no number, at {@code nowNanos}; a caller turned away looks
   * again within {@code recheckNanos}.
   */
  void admitted(long nowNanos, long recheckNanos) {
    if (!active) {
      return;
    }
    admitted++;
    if (++credit < cap()) {
      return;
    }
    credit = 0;
    if (!bound && (heldAtNanos == Long.MIN_VALUE || nowNanos - heldAtNanos > recheckNanos)) {
      active = false; // a round trip's worth came back and nobody waited: not needed
    }
    bound = false;
  }
}
