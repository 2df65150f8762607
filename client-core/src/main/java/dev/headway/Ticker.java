package dev.headway;

/**
 * A monotonic time source in nanoseconds, for deadlines and waits. Only differences between two
 * readings are meaningful.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {
  /**
   * Returns the current reading in nanoseconds.
   *
   * @return the reading in nanoseconds, from an arbitrary origin; may be negative
   */
  long read();

  /**
   * Returns the system ticker ({@link System#nanoTime()}).
   *
   * @return the shared system ticker
   */
  static Ticker system() {
    return System::nanoTime;
  }
}
