package dev.headway.internal.adapter;

import dev.headway.Ticker;
import dev.headway.internal.pacer.Time;
import java.time.Duration;

/**
 * The time one call may still spend waiting, for permits and retry delays together: every wait
 * of a call (the first permit, each retry's delay, each retry's permit) comes out of one
 * {@code maxWait}, so that no server can hold a call longer than that. Measured on the pacer's
 * {@link Ticker}.
 *
 * <p>One per call. Immutable and thread-safe (an asynchronous call may use it from several
 * threads, one after the other).
 */
public final class CallBudget {
  private final Ticker ticker;
  private final long deadlineNanos;

  private CallBudget(Ticker ticker, long deadlineNanos) {
    this.ticker = ticker;
    this.deadlineNanos = deadlineNanos;
  }

  /** Starts a budget of {@code maxWait} from now. */
  public static CallBudget start(Ticker ticker, Duration maxWait) {
    return new CallBudget(ticker, Time.add(ticker.read(), Time.nanos(maxWait)));
  }

  /**
   * Returns a budget of {@code maxWait} that started at {@code startNanos} (a reading of
   * {@code ticker}): an adapter reads the time when a call starts and makes the budget only if
   * the call waits again (most calls never do: no object for them).
   */
  public static CallBudget startedAt(Ticker ticker, long startNanos, Duration maxWait) {
    return new CallBudget(ticker, Time.add(startNanos, Time.nanos(maxWait)));
  }

  /** Returns what is left of the budget; never negative. */
  public Duration remaining() {
    long left = Time.sub(deadlineNanos, ticker.read());
    return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
  }

  /** Returns whether a wait of {@code delay} still fits in the budget. */
  public boolean allows(Duration delay) {
    return Time.nanos(delay) <= Time.sub(deadlineNanos, ticker.read());
  }
}
