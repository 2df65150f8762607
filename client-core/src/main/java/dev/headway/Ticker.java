package dev.headway;

/**
 * A monotonic time source in nanoseconds, for deadlines and waits. Only differences between two
 * readings are meaningful.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {
  /** Returns the current reading in nanoseconds. */
  long read();

  /** Returns the system ticker ({@link System#nanoTime()}). */
  static Ticker system() {
    return System::nanoTime;
  }
}
