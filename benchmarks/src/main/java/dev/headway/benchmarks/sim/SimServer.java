package dev.headway.benchmarks.sim;

import dev.headway.HttpFields;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * A simulated API server on one key, in virtual time: it admits or throttles each request and
 * says so in headers. Not thread-safe.
 */
public interface SimServer {
  /**
   * Handles {@code request} arriving at {@code nowNanos} (server wall clock {@code wallNow}); an
   * admitted request is counted against every quota that governs it.
   */
  Reply handle(SimRequest request, long nowNanos, Instant wallNow);

  /**
   * Returns the earliest time, not before {@code nowNanos}, at which {@link #handle} would admit
   * {@code request}; no side effect on what is counted. The perfect client uses it.
   */
  long nextAdmission(SimRequest request, long nowNanos);

  /** Returns the window of the server's main quota (for the herd figure). */
  long windowNanos();

  /**
   * Returns what each quota counted so far (capacity over {@code durationNanos}), in the server's order; empty for a server with one
   * quota (the run's totals say it all).
   */
  default List<QuotaUse> quotaUse(long durationNanos) {
    return List.of();
  }

  /**
   * What the server answered.
   *
   * @param allowed admitted (200) or throttled (429)
   * @param headers the response's header fields
   * @param trace a short description for traces (built only when tracing)
   */
  record Reply(boolean allowed, HttpFields headers, Supplier<String> trace) {}

  /**
   * What one quota of a server with several counted.
   *
   * @param name the quota's name ("core", "search", a bucket, "model-a tokens")
   * @param admitted requests admitted that this quota governs
   * @param units units spent on it (requests, or tokens for a token quota)
   * @param throttled 429 answers this quota caused (a request refused by several counts once
   *     for each)
   * @param limit the quota's limit per window
   * @param capacity the units the quota could grant over the run (a full bucket plus its refill,
   *     or the limit of every window the run touches)
   * @param perfectUnits the units a perfect client spent on it in the same scenario (filled in by
   *     the simulation; 0 from the server)
   */
  record QuotaUse(String name, long admitted, long units, long throttled, long limit,
      long capacity, long perfectUnits) {

    /** Returns units spent as a percentage of what the perfect client spent. */
    public double goodputPct() {
      return perfectUnits == 0 ? 100 : 100.0 * units / perfectUnits;
    }

    /** Returns units spent as a percentage of the quota's capacity over the run. */
    public double usedPct() {
      return capacity == 0 ? 0 : 100.0 * units / capacity;
    }

    /** Returns 429s caused by this quota as a percentage of {@code requests}. */
    public double throttledPct(long requests) {
      return requests == 0 ? 0 : 100.0 * throttled / requests;
    }

    QuotaUse withPerfect(long perfectUnits) {
      return new QuotaUse(name, admitted, units, throttled, limit, capacity, perfectUnits);
    }
  }
}
