package dev.headway.internal.pacer;

import dev.headway.RetryBudget;
import java.util.Iterator;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Owns the retry budget of every partition ({@link RetryBudget}): a token bucket per partition
 * key, full until a retry spends from it.
 *
 * <p>How and why: a retry spends one token and needs one whole token; a response that was not
 * throttled nor a server error gives back {@code refillPerSuccess} of one, up to the budget's
 * {@code retries}. That is gRPC's {@code retryThrottling} (a failure costs one token, a success
 * returns a fraction) and the AWS SDKs' retry quota (a retry costs, a success refunds), with the
 * simpler rule of the latter: a retry is refused when less than one token is left, rather than
 * below half of the bucket. A bucket that fills up again is dropped, so only partitions that
 * retried lately hold one; at most {@code maxPartitions} are held (past that, an arbitrary one
 * is dropped: it starts full again, which only errs towards the per-call rules).
 *
 * <p>Thread-safe: each bucket is guarded by its monitor, held for a few arithmetic operations.
 */
final class RetryBudgets {
  private final @Nullable RetryBudget budget;
  private final int maxPartitions;
  private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

  RetryBudgets(RetryBudget budget, int maxPartitions) {
    this.budget = budget.isOff() ? null : budget;
    this.maxPartitions = Math.max(1, maxPartitions);
  }

  /** One partition's tokens. */
  private static final class Bucket {
    private double tokens;

    Bucket(double tokens) {
      this.tokens = tokens;
    }
  }

  /** Whether a budget is configured at all. */
  boolean enabled() {
    return budget != null;
  }

  /**
   * Spends one retry from {@code partition}'s budget; returns false, spending nothing, when less
   * than one is left (or true at once when the budget is off).
   */
  boolean trySpend(String partition) {
    RetryBudget b = budget;
    if (b == null) {
      return true;
    }
    while (true) {
      Bucket bucket = buckets.get(partition);
      if (bucket == null) {
        if (buckets.size() >= maxPartitions) {
          dropOne();
        }
        bucket = buckets.computeIfAbsent(partition, k -> new Bucket(b.retries()));
      }
      synchronized (bucket) {
        if (buckets.get(partition) != bucket) {
          continue; // refilled and dropped meanwhile: start over with the current one
        }
        if (bucket.tokens < 1) {
          return false;
        }
        bucket.tokens -= 1;
        return true;
      }
    }
  }

  /** Gives back a share of one retry to {@code partition}: a response that was a success. */
  void refill(String partition) {
    RetryBudget b = budget;
    if (b == null) {
      return;
    }
    Bucket bucket = buckets.get(partition);
    if (bucket == null) {
      return; // full
    }
    synchronized (bucket) {
      bucket.tokens = Math.min(b.retries(), bucket.tokens + b.refillPerSuccess());
      if (bucket.tokens >= b.retries()) {
        buckets.remove(partition, bucket);
      }
    }
  }

  /** Returns how many whole retries {@code partition} may still send; empty when off. */
  OptionalInt left(String partition) {
    RetryBudget b = budget;
    if (b == null) {
      return OptionalInt.empty();
    }
    Bucket bucket = buckets.get(partition);
    if (bucket == null) {
      return OptionalInt.of(b.retries());
    }
    synchronized (bucket) {
      return OptionalInt.of((int) Math.floor(bucket.tokens));
    }
  }

  private void dropOne() {
    Iterator<String> keys = buckets.keySet().iterator();
    if (keys.hasNext()) {
      keys.next();
      keys.remove();
    }
  }
}
