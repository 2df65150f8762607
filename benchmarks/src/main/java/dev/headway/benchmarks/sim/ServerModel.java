package dev.headway.benchmarks.sim;

/**
 * A server-side rate-limit algorithm for one key, in virtual time. Not thread-safe: the
 * real-time check wraps it in a lock.
 */
public interface ServerModel {
  /** Admits or throttles a request arriving at {@code nowNanos}; an admitted one is counted. */
  Decision admit(long nowNanos);

  /**
   * Returns the earliest time, not before {@code nowNanos}, at which {@link #admit} would admit a
   * request; no side effect. Used to count what a perfect client could get.
   */
  long nextAdmission(long nowNanos);

  /** Returns the advertised quota (requests per {@link #windowNanos()}). */
  long quota();

  /** Returns the advertised window in nanoseconds. */
  long windowNanos();
}
