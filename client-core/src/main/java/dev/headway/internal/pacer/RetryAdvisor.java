package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.QuotaLimit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import java.time.Duration;
import java.util.Optional;

/**
 * Owns retry advice and backoff: whether a throttled response may be retried (attempts, 503
 * rules, idempotency, the server's own verdict), after how long (the server's advice first, else
 * exponential backoff with jitter), never past the call's wait budget, never before the
 * partition could admit the retry, and only if the partition's {@link RetryBudgets retry budget}
 * pays for it. Holds no state of its own but the retry budgets.
 *
 * <p>The server's verdict ({@link RateLimitSignal#shouldRetry()}) overrides the rules in both
 * directions: {@code false} is never retried, not even a 429 with {@code Retry-After};
 * {@code true} on an error response (status 400 or more) is retried like a throttled one, even a
 * 500 or a 503 without {@code Retry-After} or for a non-idempotent method, since the server
 * says it did not act on the request. Either way within {@code maxAttempts}, the call's wait
 * budget and the retry budget.
 *
 * <p>Never early: a delay the server named is measured from the moment the response was read,
 * and jitter only adds to it ({@link JitterSource#serverTime}); the adapters wait at least the
 * delay returned, on the pacer's ticker, before they take the retry's permit.
 */
final class RetryAdvisor {
  private final Settings settings;
  private final Admission admission;
  private final EventSink events;
  private final RetryBudgets budgets;

  RetryAdvisor(Settings settings, Admission admission, EventSink events, RetryBudgets budgets) {
    this.settings = settings;
    this.admission = admission;
    this.events = events;
    this.budgets = budgets;
  }

  /**
   * Returns whether {@code signal} may be retried at all by its kind: throttled, or an error the
   * server said to retry; and not vetoed by the server.
   */
  static boolean retryable(RateLimitSignal signal) {
    if (signal.shouldRetry().isPresent()) {
      return signal.shouldRetry().get() && signal.status() >= 400;
    }
    return signal.throttled();
  }

  /** A response applied to {@code partition}: a success gives back a share of a retry. */
  void onResponse(String partition, RateLimitSignal signal) {
    if (budgets.enabled() && !signal.throttled() && signal.status() < 500
        && !signal.shouldRetry().orElse(false)) {
      budgets.refill(partition);
    }
  }

  /** See {@code Pacer.retryDelay}. */
  Optional<Duration> retryDelay(RequestInfo request, RateLimitSignal signal, int attempts,
      Duration budget) {
    long budgetNanos = Time.nanos(budget);
    long delay = retryDelayNanos(request, signal, attempts, true, budgetNanos);
    if (delay < 0) {
      return Optional.empty();
    }
    long now = settings.ticker.read();
    PermitImpl retry = admission.newPermit(request);
    long sendAt = admission.peek(retry, Time.add(now, delay), now, Time.add(now, budgetNanos));
    delay = Math.max(delay, Time.sub(sendAt, now));
    if (delay > budgetNanos) {
      return Optional.empty();
    }
    Duration d = Duration.ofNanos(delay);
    String partition = settings.resolver.resolve(request);
    if (!budgets.trySpend(partition)) {
      if (events.enabled()) {
        events.emit(new PacerEvent.RetryRefused(partition, signal.status(), attempts));
      }
      return Optional.empty();
    }
    if (events.enabled()) {
      events.emit(new PacerEvent.Retried(partition, attempts, d));
    }
    return Optional.of(d);
  }

  /** Returns how long a throttled response holds its partition back (no jitter). */
  long holdNanos(RateLimitSignal signal, int consecutive) {
    long server = serverAdvice(signal);
    if (server >= 0) {
      return server;
    }
    return backoffNanos(consecutive);
  }

  /**
   * Returns the time the server advised, in nanoseconds, or -1: {@code Retry-After} first (it
   * takes precedence, draft section 7), then the reset of the exhausted (or most restrictive)
   * limit, then a body hint.
   */
  private long serverAdvice(RateLimitSignal signal) {
    long maxRetry = Time.nanos(settings.caps.maxRetryAfter());
    if (signal.retryAfter().isPresent()) {
      return Math.min(Time.nanos(signal.retryAfter().get()), maxRetry);
    }
    long exhausted = -1;
    long lowestRemaining = Long.MAX_VALUE;
    long lowestReset = -1;
    for (QuotaLimit limit : signal.limits()) {
      if (limit.reset().isEmpty()
          || limit.reset().get().compareTo(settings.caps.maxReset()) > 0) {
        continue;
      }
      long reset = Time.nanos(limit.reset().get());
      if (limit.remaining() == 0) {
        exhausted = Math.max(exhausted, reset);
      }
      if (limit.remaining() < lowestRemaining) {
        lowestRemaining = limit.remaining();
        lowestReset = reset;
      }
    }
    if (exhausted >= 0) {
      return exhausted;
    }
    if (lowestReset >= 0) {
      return lowestReset;
    }
    if (signal.bodyRetryAfter().isPresent()) {
      return Math.min(Time.nanos(signal.bodyRetryAfter().get()), maxRetry);
    }
    return -1;
  }

  /** Returns the exponential backoff of the {@code attempt}-th try, capped (no jitter). */
  private long backoffNanos(int attempt) {
    int shift = Math.max(0, Math.min(62, attempt - 1));
    long base = settings.baseBackoffNanos;
    long d = base > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : base << shift;
    return Math.min(d, settings.maxBackoffNanos);
  }

  private long retryDelayNanos(RequestInfo request, RateLimitSignal signal, int attempts,
      boolean jittered, long budgetNanos) {
    if (!retryable(signal) || attempts >= settings.maxAttempts) {
      return -1;
    }
    boolean serverSaysRetry = signal.shouldRetry().orElse(false);
    if (signal.status() == 503 && !serverSaysRetry) {
      if (signal.retryAfter().isEmpty()) {
        return -1;
      }
      if (!idempotent(request.method()) && !settings.retryNonIdempotentOn503) {
        return -1;
      }
    }
    long server = serverAdvice(signal);
    if (server >= 0) {
      if (server > budgetNanos) {
        return -1;
      }
      if (!jittered) {
        return server;
      }
      long now = settings.ticker.read();
      return Time.sub(settings.jitter.serverTime(Time.add(now, server), now,
          Time.add(now, budgetNanos), 0, false), now);
    }
    long computed = backoffNanos(Math.max(1, attempts));
    long d = jittered ? settings.jitter.backoff(computed) : computed;
    return Math.min(Math.max(0, d), budgetNanos);
  }

  private static boolean idempotent(String method) {
    switch (method) {
      case "GET":
      case "HEAD":
      case "OPTIONS":
      case "TRACE":
      case "PUT":
      case "DELETE":
        return true;
      default:
        return false;
    }
  }
}
