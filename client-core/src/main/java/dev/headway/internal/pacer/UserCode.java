package dev.headway.internal.pacer;

import dev.headway.Jitter;
import dev.headway.PacingStrategy;
import dev.headway.PartitionKeyResolver;
import dev.headway.QuotaUnit;
import dev.headway.RequestCost;
import dev.headway.RequestInfo;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Owns what happens when code the user plugged in throws: a strategy, a cost function, a
 * partition key resolver or a jitter is user code that runs on the pacer's threads, under its
 * locks. None of them can break a request or leave a caller's future incomplete; each failure is
 * logged ({@link Swallowed}) and the request gets the default behaviour for that one call:
 *
 * <ul>
 *   <li>a {@link PacingStrategy} that throws spaces nothing (as {@code useAllThenWait}): the
 *       quota itself still bounds what is sent;
 *   <li>a {@link RequestCost} that throws costs one request unit (no bytes, no tokens);
 *   <li>a {@link PartitionKeyResolver} that throws puts the request in its origin's partition
 *       (so does one that calls a randomly keyed credential resolver for a pacer with a store);
 *   <li>a {@link Jitter} that throws adds none (a backoff is the computed one).
 * </ul>
 */
final class UserCode {
  private UserCode() {}

  /** Returns {@code strategy}, guarded. */
  static PacingStrategy strategy(PacingStrategy strategy, Swallowed swallowed) {
    return new PacingStrategy() {
      @Override
      public long spacingNanos(long available, long limit, long timeToResetNanos) {
        try {
          return strategy.spacingNanos(available, limit, timeToResetNanos);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
          swallowed.report("the PacingStrategy " + strategy, e);
          return 0;
        }
      }

      @Override
      public String toString() {
        return strategy.toString();
      }
    };
  }

  /** Returns {@code cost}, guarded. */
  static RequestCost cost(RequestCost cost, Swallowed swallowed) {
    if (cost == RequestCost.oneUnit()) {
      return cost; // the default cannot throw: the hot path calls it directly
    }
    return new RequestCost() {
      @Override
      public long cost(RequestInfo request) {
        return cost(request, QuotaUnit.REQUESTS);
      }

      @Override
      public long cost(RequestInfo request, QuotaUnit unit) {
        try {
          return cost.cost(request, unit);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
          swallowed.report("the RequestCost " + cost, e);
          return unit == QuotaUnit.REQUESTS ? 1 : 0;
        }
      }
    };
  }

  /**
   * Returns {@code resolver}, guarded, a null key read as the request's origin; for a pacer with
   * a store ({@code shared}), a randomly keyed credential resolver it calls throws, and the
   * request goes to its origin's partition.
   */
  static PartitionKeyResolver resolver(PartitionKeyResolver resolver, Swallowed swallowed,
      boolean shared) {
    PartitionKeyResolver origin = PartitionKeyResolver.origin();
    if (resolver == origin) {
      return resolver; // the default cannot throw (a request's URI is absolute)
    }
    return new PartitionKeyResolver() {
      @Override
      public String resolve(RequestInfo request) {
        try {
          String key = shared ? CredentialResolver.resolveShared(resolver, request)
              : resolver.resolve(request);
          return key != null ? key : origin.resolve(request);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
          swallowed.report("the PartitionKeyResolver " + resolver, e);
          return origin.resolve(request);
        }
      }
    };
  }

  /** Returns {@code jitter}, guarded. */
  static Jitter jitter(Jitter jitter, Swallowed swallowed) {
    return new Jitter() {
      @Override
      public Duration backoff(Duration computed, Duration previous, RandomGenerator random) {
        try {
          return jitter.backoff(computed, previous, random);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
          swallowed.report("the Jitter " + jitter, e);
          return computed;
        }
      }

      @Override
      public Duration extra(Duration spread, RandomGenerator random) {
        try {
          return jitter.extra(spread, random);
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
          swallowed.report("the Jitter " + jitter, e);
          return Duration.ZERO;
        }
      }
    };
  }
}
