package dev.headway.cli;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.RateLimitSignal;
import dev.headway.SignalWarning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@code headway explain} prints, whatever the format: the parsed signal plus the values
 * derived from it.
 *
 * @param signal what the parser read
 * @param retryAfter the server's retry delay: {@code Retry-After} (or a dialect's equivalent), else
 *     the hint of a JSON body
 * @param nextRequest when the next request may go according to this response alone
 *     ({@link RateLimitSignal#nextRequestDelay()}); empty when it gives no reason to wait
 * @param effective the most restrictive limit
 * @param action what a client using Headway does with this response, in a few words (see
 *     {@link #action})
 * @param warnings the parser's warnings and the notes about the input, each
 *     {@code "field: message"}
 */
record Explanation(
    RateLimitSignal signal, Optional<Duration> retryAfter, Optional<Duration> nextRequest,
    Effective effective, String action, List<String> warnings) {

  Explanation {
    Objects.requireNonNull(signal, "signal must not be null");
    Objects.requireNonNull(retryAfter, "retryAfter must not be null");
    Objects.requireNonNull(nextRequest, "nextRequest must not be null");
    Objects.requireNonNull(effective, "effective must not be null");
    Objects.requireNonNull(action, "action must not be null");
    warnings = List.copyOf(warnings);
  }

  /**
   * The most restrictive limit: the lowest remaining count (of equals, the one that resets last),
   * with the quota of its policy as {@code limit}. Without any remaining count, partial
   * information still fills it: the smallest advertised quota as {@code limit}, and the latest
   * reset reported without a count as {@code reset} (the quota is free again only when every
   * such reset has passed), {@code remaining} staying {@code null}.
   *
   * @param remaining the units remaining
   * @param limit the quota of the limit's policy, if that policy was advertised
   * @param reset the time until the limit resets, if known
   */
  record Effective(OptionalLong remaining, OptionalLong limit, Optional<Duration> reset) {
    static final Effective NONE = new Effective(OptionalLong.empty(), OptionalLong.empty(),
        Optional.empty());

    Effective {
      Objects.requireNonNull(remaining, "remaining must not be null");
      Objects.requireNonNull(limit, "limit must not be null");
      Objects.requireNonNull(reset, "reset must not be null");
    }
  }

  /** Returns the explanation of {@code signal}, adding {@code inputNotes} to its warnings. */
  static Explanation of(RateLimitSignal signal, List<String> inputNotes) {
    List<String> warnings = new ArrayList<>(inputNotes);
    for (SignalWarning warning : signal.warnings()) {
      warnings.add(warning.field() + ": " + warning.message());
    }
    Effective effective = signal.mostRestrictive()
        .map(limit -> new Effective(OptionalLong.of(limit.remaining()), quotaOf(signal, limit),
            limit.reset()))
        .orElseGet(() -> partial(signal));
    return new Explanation(signal, signal.retryAfter().or(signal::bodyRetryAfter),
        signal.nextRequestDelay(), effective, action(signal, signal.nextRequestDelay()),
        warnings);
  }

  /**
   * Returns what a client using Headway (its default settings, a request it can send again)
   * does with a response that said {@code signal}, the first that applies of:
   *
   * <ol>
   *   <li>an error the server vetoed retrying ({@code x-should-retry: false} and its kin): the
   *       caller gets it, not retried;
   *   <li>an error the server said to retry: retried after its delay, else after a backoff;
   *   <li>throttled: retried after the delay it names, or, with no figure at all (a bare 429),
   *       after a backoff;
   *   <li>(in both) a delay past the default {@code maxWait}: not retried, and until then a
   *       request fails at once;
   *   <li>a 503 without {@code Retry-After}: the caller gets it, not retried;
   *   <li>a spent quota (a delay before the next request): the next request waits, or fails at
   *       once if that is past the default {@code maxWait};
   *   <li>any other response: the next request goes, paced by what the response advertised.
   * </ol>
   */
  /** {@code Pacer.builder()}'s {@code maxWait}: a retry later than this is not waited for. */
  static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);

  /** Returns the retry after {@code delay}, or why there is none: past the default maxWait. */
  private static String retryIn(String why, Duration delay) {
    if (delay.compareTo(DEFAULT_MAX_WAIT) > 0) {
      return why + ": " + Seconds.text(delay) + " s is past maxWait (30 s by default): not"
          + " retried, the caller gets this response, and until then a request fails at once"
          + " (RateLimitedException)";
    }
    return why + ": " + (delay.isZero() ? "retry now" : "retry in " + Seconds.text(delay) + " s");
  }

  /** Returns what the next request does: waits {@code delay}, or fails past the maxWait. */
  private static String nextWaits(Duration delay) {
    return delay.compareTo(DEFAULT_MAX_WAIT) > 0
        ? "the next request would wait " + Seconds.text(delay) + " s, past maxWait (30 s by"
            + " default): it fails at once (RateLimitedException)"
        : "the next request waits " + Seconds.text(delay) + " s";
  }

  static String action(RateLimitSignal signal, Optional<Duration> next) {
    boolean error = signal.status() >= 400;
    Optional<Boolean> verdict = signal.shouldRetry();
    if (error && verdict.isPresent() && !verdict.get()) {
      return "the server says do not retry: the caller gets this response"
          + next.filter(d -> !d.isZero()).map(d -> ", and " + nextWaits(d)).orElse("");
    }
    if (error && verdict.orElse(false)) {
      return next.map(d -> retryIn("the server says retry", d))
          .orElse("the server says retry: retry after a backoff");
    }
    if (signal.throttled()) {
      return next.map(d -> retryIn("throttled", d)).orElse("throttled, no hint: back off");
    }
    if (signal.status() == 503) {
      return "unavailable without Retry-After: not retried, the caller gets this response";
    }
    if (next.isPresent() && !next.get().isZero()) {
      return "quota spent: " + nextWaits(next.get());
    }
    if (error) {
      return "an error without a rate-limit signal: not retried";
    }
    return signal.isEmpty() ? "no rate-limit signal: the next request goes now"
        : "within quota: the next request goes, paced over what remains";
  }

  /** Returns the effective values of a signal with no remaining count at all. */
  private static Effective partial(RateLimitSignal signal) {
    OptionalLong limit = OptionalLong.empty();
    for (QuotaPolicy policy : signal.policies()) {
      if (limit.isEmpty() || policy.quota() < limit.getAsLong()) {
        limit = OptionalLong.of(policy.quota());
      }
    }
    Optional<Duration> reset = Optional.empty();
    for (QuotaReset r : signal.resets()) {
      if (reset.isEmpty() || r.reset().compareTo(reset.get()) > 0) {
        reset = Optional.of(r.reset());
      }
    }
    return new Effective(OptionalLong.empty(), limit, reset);
  }

  /** Returns the quota of the policy the limit belongs to: same name and partition, else name. */
  private static OptionalLong quotaOf(RateLimitSignal signal, QuotaLimit limit) {
    Optional<QuotaPolicy> policy = signal.policy(limit.policy(), limit.partitionKey())
        .or(() -> signal.policies().stream()
            .filter(p -> p.name().equals(limit.policy()))
            .findFirst());
    return policy.map(p -> OptionalLong.of(p.quota())).orElse(OptionalLong.empty());
  }
}
