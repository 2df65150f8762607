package dev.headway.testing.store;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A wall clock that moves only when told. Thread-safe. */
public final class ManualClock implements InstantSource {
  private volatile Instant now;

  /**
   * Creates a clock showing {@code start}.
   *
   * @param start the first instant
   */
  public ManualClock(Instant start) {
    this.now = start;
  }

  @Override
  public Instant instant() {
    return now;
  }

  /**
   * Moves the clock forward.
   *
   * @param duration how far; not negative
   */
  public synchronized void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("duration must not be negative but was " + duration);
    }
    now = now.plus(duration);
  }
}
