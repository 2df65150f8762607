package dev.headway.internal.adapter;

import dev.headway.Pacer;
import dev.headway.internal.pacer.PacerSettings;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Owns the two limits an interceptor's builder sets for each call: the longest the call may wait
 * in all ({@code maxWait}, zero or more: zero never waits, as a call's own {@code maxWait}) and how many attempts it may make ({@code maxAttempts}, at
 * least 1), each validated when set (an {@link IllegalArgumentException} naming the field and
 * the value) and, when not set, the pacer's own. Not thread-safe (as a builder).
 */
public final class CallLimits {
  private @Nullable Duration maxWait;
  private int maxAttempts;

  /** Starts with neither limit set. */
  public CallLimits() {}

  /**
   * Sets the longest a call may wait in all; zero never waits.
   *
   * @throws IllegalArgumentException if negative
   */
  public void maxWait(Duration maxWait) {
    this.maxWait = PacerSettings.notNegative("maxWait", maxWait);
  }

  /**
   * Sets the maximum number of attempts per call, the first included.
   *
   * @throws IllegalArgumentException if less than 1
   */
  public void maxAttempts(int maxAttempts) {
    this.maxAttempts = PacerSettings.checkMaxAttempts(maxAttempts);
  }

  /** Returns the {@code maxWait} set, or {@code pacer}'s. */
  public Duration maxWait(Pacer pacer) {
    return maxWait == null ? pacer.maxWait() : maxWait;
  }

  /** Returns the {@code maxAttempts} set, or {@code pacer}'s. */
  public int maxAttempts(Pacer pacer) {
    return maxAttempts == 0 ? pacer.maxAttempts() : maxAttempts;
  }
}
