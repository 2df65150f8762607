package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.SanityCaps;
import dev.headway.SignalWarning;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link SignalSink} of one response: applies the {@link SanityCaps} and the bounds on hostile
 * input to what the dialects report, and remembers which dialect said what.
 *
 * <p>Rules: the first report of a policy or limit for a (name, partition key) wins, so that a
 * vendor dialect tried early is not contradicted by a generic one tried later (and the same
 * values sent under two header families are not counted twice); the first retry delay wins; at
 * most {@link #MAX_ITEMS} policies, {@link #MAX_ITEMS} limits and {@link #MAX_WARNINGS} warnings
 * are kept, the rest summarised in one warning; names longer than {@link #MAX_NAME_LENGTH} are
 * dropped. On a response served from cache, policies and limits are ignored (draft section 7.3).
 *
 * <p>Not thread-safe: one per response.
 */
final class SignalCollector implements SignalSink {
  static final int MAX_ITEMS = 64;
  static final int MAX_WARNINGS = 32;
  static final int MAX_NAME_LENGTH = 256;

  private final SanityCaps caps;
  private final long age;
  private String dialect = "";
  private boolean dialectRecorded;

  private @Nullable List<QuotaPolicy> policies;
  private @Nullable List<QuotaLimit> limits;
  private @Nullable List<SignalWarning> warnings;
  private @Nullable List<String> dialects;
  private @Nullable Duration retryAfter;
  private boolean throttled;
  private int droppedItems;
  private int droppedForCache;
  private int suppressedWarnings;

  SignalCollector(SanityCaps caps, long age) {
    this.caps = caps;
    this.age = age;
  }

  void begin(String dialectName) {
    this.dialect = dialectName;
    this.dialectRecorded = false;
  }

  /** Records the current dialect as having recognised something. */
  void recognise() {
    recognised();
  }

  /** Marks the response throttled if {@code problemType} is one of the draft's problem types. */
  void throttledIfDraftProblem(Optional<String> problemType) {
    if (problemType.isPresent() && problemType.get().startsWith(BodyReader.PROBLEM_TYPES)) {
      String name = problemType.get().substring(BodyReader.PROBLEM_TYPES.length());
      if (name.equals("quota-exceeded") || name.equals("temporary-reduced-capacity")
          || name.equals("abnormal-usage-detected")) {
        throttled = true;
      }
    }
  }

  private void recognised() {
    if (!dialectRecorded) {
      dialectRecorded = true;
      if (dialects == null) {
        dialects = new ArrayList<>(2);
      }
      if (!dialects.contains(dialect)) {
        dialects.add(dialect);
      }
    }
  }

  @Override
  public void policy(QuotaPolicy policy) {
    recognised();
    if (age > 0) {
      droppedForCache++;
      return;
    }
    if (!nameAcceptable(policy.name(), policy.partitionKey())) {
      return;
    }
    if (policies == null) {
      policies = new ArrayList<>(2);
    }
    for (QuotaPolicy existing : policies) {
      if (existing.name().equals(policy.name())
          && existing.partitionKey().equals(policy.partitionKey())) {
        return;
      }
    }
    if (policies.size() >= MAX_ITEMS) {
      droppedItems++;
      return;
    }
    long quota = policy.quota();
    if (quota > caps.maxQuota()) {
      warn(policy.name(), SignalWarning.Kind.CAPPED,
          "quota " + quota + " capped to " + caps.maxQuota());
      quota = caps.maxQuota();
    }
    Optional<Duration> window = policy.window();
    if (window.isPresent() && window.get().compareTo(caps.maxWindow()) > 0) {
      warn(policy.name(), SignalWarning.Kind.CAPPED,
          "window " + window.get() + " capped to " + caps.maxWindow());
      window = Optional.of(caps.maxWindow());
    }
    policies.add(quota == policy.quota() && window == policy.window() ? policy
        : new QuotaPolicy(policy.name(), quota, policy.unit(), window, policy.partitionKey(),
            policy.dialect()));
  }

  @Override
  public void limit(QuotaLimit limit) {
    recognised();
    if (age > 0) {
      droppedForCache++;
      return;
    }
    if (!nameAcceptable(limit.policy(), limit.partitionKey())) {
      return;
    }
    if (limits == null) {
      limits = new ArrayList<>(2);
    }
    for (QuotaLimit existing : limits) {
      if (existing.policy().equals(limit.policy())
          && existing.partitionKey().equals(limit.partitionKey())) {
        return;
      }
    }
    if (limits.size() >= MAX_ITEMS) {
      droppedItems++;
      return;
    }
    long remaining = limit.remaining();
    if (remaining > caps.maxRemaining()) {
      warn(limit.policy(), SignalWarning.Kind.CAPPED,
          "remaining " + remaining + " capped to " + caps.maxRemaining());
      remaining = caps.maxRemaining();
    }
    Optional<Duration> reset = limit.reset();
    if (reset.isPresent() && reset.get().compareTo(caps.maxReset()) > 0) {
      warn(limit.policy(), SignalWarning.Kind.CAPPED,
          "reset " + reset.get() + " capped to " + caps.maxReset());
      reset = Optional.of(caps.maxReset());
    }
    limits.add(remaining == limit.remaining() && reset == limit.reset() ? limit
        : new QuotaLimit(limit.policy(), remaining, reset, limit.partitionKey(), limit.dialect()));
  }

  @Override
  public void retryAfter(Duration delay) {
    recognised();
    if (retryAfter != null) {
      return;
    }
    if (delay.isNegative()) {
      warn("retry-after", SignalWarning.Kind.DROPPED, "negative delay " + delay);
      return;
    }
    retryAfter = capRetry("retry-after", delay);
  }

  /** Applies the retry cap to a delay from {@code field}, warning when it clamps. */
  Duration capRetry(String field, Duration delay) {
    if (delay.compareTo(caps.maxRetryAfter()) > 0) {
      warn(field, SignalWarning.Kind.CAPPED,
          "delay " + delay + " capped to " + caps.maxRetryAfter());
      return caps.maxRetryAfter();
    }
    return delay;
  }

  @Override
  public void throttled() {
    recognised();
    throttled = true;
  }

  @Override
  public void warn(String field, SignalWarning.Kind kind, String message) {
    recognised();
    addWarning(field, kind, message);
  }

  /** Adds a warning that no dialect raised (reader-level: body, Age, a failing dialect). */
  void addWarning(String field, SignalWarning.Kind kind, String message) {
    if (warnings == null) {
      warnings = new ArrayList<>(2);
    }
    if (warnings.size() >= MAX_WARNINGS) {
      suppressedWarnings++;
      return;
    }
    warnings.add(new SignalWarning(field, kind, message));
  }

  private boolean nameAcceptable(String name, Optional<String> partitionKey) {
    if (name.length() > MAX_NAME_LENGTH
        || (partitionKey.isPresent() && partitionKey.get().length() > MAX_NAME_LENGTH)) {
      addWarning(dialect, SignalWarning.Kind.DROPPED,
          "policy name or partition key longer than " + MAX_NAME_LENGTH + " characters: "
              + FieldValues.quote(name));
      return false;
    }
    return true;
  }

  /** Adds the summary warnings; call once after every dialect ran. */
  void finish() {
    if (droppedForCache > 0) {
      addWarning("age", SignalWarning.Kind.CACHED,
          "response served from cache (Age: " + age + "); " + droppedForCache
              + " policy and limit values ignored (draft section 7.3)");
    }
    if (droppedItems > 0) {
      addWarning(dialect, SignalWarning.Kind.DROPPED,
          droppedItems + " policies or limits past the first " + MAX_ITEMS + " ignored");
    }
    if (suppressedWarnings > 0) {
      if (warnings == null) {
        warnings = new ArrayList<>(1);
      }
      warnings.add(new SignalWarning("*", SignalWarning.Kind.DROPPED,
          suppressedWarnings + " more warnings suppressed"));
    }
  }

  List<QuotaPolicy> policies() {
    return policies == null ? List.of() : policies;
  }

  List<QuotaLimit> limits() {
    return limits == null ? List.of() : limits;
  }

  List<SignalWarning> warnings() {
    return warnings == null ? List.of() : warnings;
  }

  List<String> dialects() {
    return dialects == null ? List.of() : dialects;
  }

  Optional<Duration> retryAfterValue() {
    return Optional.ofNullable(retryAfter);
  }

  boolean throttledReported() {
    return throttled;
  }

  boolean hasZeroRemaining() {
    if (limits != null) {
      for (QuotaLimit limit : limits) {
        if (limit.remaining() == 0) {
          return true;
        }
      }
    }
    return false;
  }
}
