package dev.headway.internal.pacer;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.store.ServerCount;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Turns a response's tightest request count into the {@link ServerCount} a fleet shares, and
 * chooses the instant it holds for: the request was sent at {@code sent}, so every unit the fleet
 * sent before then is in the count, except units of requests it overtook on the way. Requests
 * sent within a quarter of this request's round trip (half its one-way delay, at most 50 ms) may
 * reach the server in either order; the count holds for that much earlier, rounded down to the
 * millisecond (the precision stores keep).
 */
final class FleetCount {
  /** The longest allowance for requests overtaking each other. */
  static final long MAX_OVERTAKE_NANOS = 50_000_000L;

  private FleetCount() {}

  /**
   * The lowest request count of the response (of the base partition, or of the one server
   * partition key it names), or null. A count of the base partition takes its quota and window
   * from the base's policy of its name; a count of a server partition key from the response's
   * policy item of its name and key: the base's policies are of requests without the key (a
   * server may name a policy the same with and without one), never that key's.
   */
  static @Nullable ServerCount of(Fleet f, Partition partition, RateLimitSignal signal,
      long sentNanos, long now) {
    QuotaLimit best = tightest(partition, signal);
    if (best == null) {
      return null;
    }
    if (best.partitionKey().isPresent()) {
      QuotaPolicy named = policyItem(signal, best);
      return of(f, best, named == null ? 0 : named.quota(),
          named == null ? 0 : named.window().map(Time::nanos).orElse(0L), sentNanos, now);
    }
    ServerPolicy policy = policy(partition, best.policy());
    return of(f, best, policy != null && policy.quota > 0 ? policy.quota : 0,
        policy != null ? policy.window.windowNanos : 0, sentNanos, now);
  }

  /**
   * The base partition's server policy of the response's lowest request count, or null (none, or
   * the count is of a server partition key: see {@link #of}).
   */
  static @Nullable ServerPolicy tightestPolicy(Partition partition, RateLimitSignal signal) {
    QuotaLimit best = tightest(partition, signal);
    return best == null || best.partitionKey().isPresent() ? null
        : policy(partition, best.policy());
  }

  /**
   * The response's lowest request count of the base partition; or, when every count and policy
   * that names a server partition key ({@code pk}) names the same one, of that key's: the
   * partition of the quota the request spent (express-rate-limit's {@code draft-8} puts its key
   * on every response), which the base's next requests spend too. Counts of several keys in one
   * response stay unshared: which of them the next request spends is not known.
   */
  private static @Nullable QuotaLimit tightest(Partition partition, RateLimitSignal signal) {
    String pk = onlyPartitionKey(signal);
    QuotaLimit best = null;
    for (QuotaLimit limit : signal.limits()) {
      if (limit.partitionKey().isPresent() && !limit.partitionKey().get().equals(pk)) {
        continue;
      }
      @Nullable QuotaUnit unit;
      if (limit.partitionKey().isPresent()) {
        QuotaPolicy named = policyItem(signal, limit);
        unit = named == null ? null : named.unit();
      } else {
        ServerPolicy policy = policy(partition, limit.policy());
        unit = policy == null ? null : policy.unit;
      }
      if (unit != null && unit != QuotaUnit.REQUESTS) {
        continue;
      }
      if (best == null || limit.remaining() < best.remaining()) {
        best = limit;
      }
    }
    return best;
  }

  private static @Nullable ServerCount of(Fleet f, QuotaLimit best, long quotaUnits,
      long windowNanos, long sentNanos, long now) {
    long remaining = Math.min(best.remaining(), ServerCount.MAX_UNITS);
    Instant observed = f.instant(countedUpTo(sentNanos, now), now);
    observed = Instant.ofEpochMilli(observed.toEpochMilli());
    Instant received = f.settings.wallClock.instant();
    Optional<Instant> resetAt = best.reset().map(r -> received.plus(
        r.compareTo(f.settings.caps.maxReset()) > 0 ? f.settings.caps.maxReset() : r));
    OptionalLong quota = quotaUnits > 0
        ? OptionalLong.of(Math.min(quotaUnits, ServerCount.MAX_UNITS)) : OptionalLong.empty();
    Optional<Duration> window = windowNanos > 0
        ? Optional.of(Duration.ofNanos(windowNanos)) : Optional.empty();
    try {
      return new ServerCount(remaining, observed, resetAt, quota, window);
    } catch (IllegalArgumentException e) {
      try {
        return new ServerCount(remaining, observed, resetAt, OptionalLong.empty(),
            Optional.empty());
      } catch (IllegalArgumentException again) {
        return null;
      }
    }
  }

  /** The engine time the count holds for, before rounding: the send less the allowance. */
  static long countedUpTo(long sentNanos, long now) {
    long sent = Math.min(sentNanos, now);
    long overtake = Math.min(MAX_OVERTAKE_NANOS, Math.max(0, Time.sub(now, sent)) / 4);
    return Time.sub(sent, overtake);
  }

  /**
   * The engine time of the count's (rounded) instant: units sent at or before it are in the
   * count.
   */
  static long engineTime(Fleet f, Instant observedAt, long sentNanos, long now) {
    long upTo = countedUpTo(sentNanos, now);
    Instant exact = f.instant(upTo, now);
    long rounding = Duration.between(observedAt, exact).toNanos();
    return Time.sub(upTo, Math.max(0, rounding));
  }

  /** The one server partition key the response names, or null (none, or several). */
  private static @Nullable String onlyPartitionKey(RateLimitSignal signal) {
    String pk = null;
    for (QuotaLimit limit : signal.limits()) {
      if (limit.partitionKey().isPresent()) {
        if (pk != null && !pk.equals(limit.partitionKey().get())) {
          return null;
        }
        pk = limit.partitionKey().get();
      }
    }
    for (QuotaPolicy policy : signal.policies()) {
      if (policy.partitionKey().isPresent()) {
        if (pk != null && !pk.equals(policy.partitionKey().get())) {
          return null;
        }
        pk = policy.partitionKey().get();
      }
    }
    return pk;
  }

  /** The response's policy item of {@code limit}'s name and partition key, or null. */
  private static @Nullable QuotaPolicy policyItem(RateLimitSignal signal, QuotaLimit limit) {
    for (QuotaPolicy policy : signal.policies()) {
      if (policy.name().equals(limit.policy())
          && policy.partitionKey().equals(limit.partitionKey())) {
        return policy;
      }
    }
    return null;
  }

  private static @Nullable ServerPolicy policy(Partition partition, String name) {
    for (PolicyState s : partition.policies()) {
      if (s instanceof ServerPolicy sp && sp.name.equals(name)) {
        return sp;
      }
    }
    return null;
  }
}
