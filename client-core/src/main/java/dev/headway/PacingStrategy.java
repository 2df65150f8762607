package dev.headway;

import dev.headway.internal.pacer.Strategies;

/**
 * How a {@link Pacer} spends the quota a server says is left: how far apart to place requests
 * inside a window. The pacer asks the strategy after each request it lets through, for the gap to
 * leave before the next one; it never lets more requests through than the quota allows, whatever
 * the strategy says (draft section 7: "slowing down or pre-emptively back-off ... when
 * approaching quota limits; consuming all the quota ... and then wait").
 *
 * <p>Three strategies are provided:
 *
 * <ul>
 *   <li>{@link #spread()}: the remaining units evenly over the time to reset;
 *   <li>{@link #burstThenSpread(double)}: no spacing while more than a fraction of the quota is
 *       left, then the rest evenly over the time to reset (the default, with 0.2);
 *   <li>{@link #useAllThenWait()}: no spacing at all; when the quota is spent, wait for the
 *       reset.
 * </ul>
 *
 * <p>Implementations run on every request, under the partition's lock: they must be fast,
 * allocation-free and thread-safe.
 */
@FunctionalInterface
public interface PacingStrategy {
  /**
   * Returns the gap, in nanoseconds, to leave after a request for each unit it spent.
   *
   * @param available the units left in the current window, this request's included; positive
   * @param limit the policy's quota, or {@code available} when the server never said it
   * @param timeToResetNanos the nanoseconds until the window resets; 0 when unknown
   * @return the gap per unit in nanoseconds; 0 for none; negative values count as 0
   */
  long spacingNanos(long available, long limit, long timeToResetNanos);

  /**
   * Returns the strategy that spreads the remaining units evenly over the time to reset.
   *
   * @return the shared spreading strategy
   */
  static PacingStrategy spread() {
    return Strategies.SPREAD;
  }

  /**
   * Returns the strategy that sends without spacing while more than {@code lowWaterFraction} of
   * the quota is left, then spreads what is left evenly over the time to reset.
   *
   * @param lowWaterFraction the fraction of the quota below which spreading starts, in
   *     {@code [0, 1]}; 0 behaves like {@link #useAllThenWait()}, 1 like {@link #spread()}
   * @return a strategy with that low-water mark
   * @throws IllegalArgumentException if outside {@code [0, 1]}
   */
  static PacingStrategy burstThenSpread(double lowWaterFraction) {
    return Strategies.burstThenSpread(lowWaterFraction);
  }

  /**
   * Returns the strategy that spends the quota as fast as requests come, then waits.
   *
   * @return the shared use-all-then-wait strategy
   */
  static PacingStrategy useAllThenWait() {
    return Strategies.USE_ALL;
  }
}
