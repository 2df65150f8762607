package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.SanityCaps;
import dev.headway.SignalWarning;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.SignalSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The {@link SignalSink} of one response: applies the {@link SanityCaps} and the bounds on hostile
 * input to what the dialects report, and remembers which dialect said what.
 *
 * <p>Rules: the first report of a policy or limit for a (name, partition key) wins, so that a
 * vendor dialect tried early is not contradicted by a generic one tried later (and the same
 * values sent under two header families are not counted twice); the first retry delay wins; at
 * most {@link #MAX_ITEMS} policies, {@link #MAX_ITEMS} limits and {@link #MAX_WARNINGS} warnings
 * ({@link #MAX_WARNINGS_PER_FIELD} of one field) are kept, the rest summarised (one warning per
 * field, one for the whole response); names longer than {@link #MAX_NAME_LENGTH} are
 * dropped. On a response served from cache, policies and limits are ignored (draft section 7.3).
 *
 * <p>Allocation: most responses report one policy, one limit and one dialect, so the first of
 * each is held in a field and a list is allocated only for a second; the lists handed to the
 * {@link dev.headway.RateLimitSignal} are immutable ({@code List.of} / {@code List.copyOf}), so
 * its own {@code List.copyOf} copies nothing.
 *
 * <p>This class owns the joining of policies and limits and the retry delay. The caps and their
 * warnings are {@link Capping}'s rules; the warnings and their bounds live in
 * {@link SignalWarnings}, and what most responses never need (resets without a count, the
 * documented delay, the counters of dropped items) in {@link RareSignals}, each allocated on
 * first use.
 *
 * <p>Not thread-safe: one per response.
 */
final class SignalCollector implements SignalSink {
  static final int MAX_ITEMS = 64;
  static final int MAX_WARNINGS = 32;
  /** At most this many warnings of one field are kept, then one "and N more" of it. */
  static final int MAX_WARNINGS_PER_FIELD = 8;
  static final int MAX_NAME_LENGTH = 256;
  /** The field of a warning about a value reported without its field. */
  static final String UNKNOWN_FIELD = "*";

  private final SanityCaps caps;
  private final long age;
  private String dialect = "";
  private boolean dialectRecorded;

  /** The only policy, or the first of several. */
  private @Nullable QuotaPolicy firstPolicy;
  /** Every policy, once there are two or more. */
  private @Nullable List<QuotaPolicy> policies;
  private @Nullable QuotaLimit firstLimit;
  private @Nullable List<QuotaLimit> limits;
  private @Nullable SignalWarnings warnings;
  private @Nullable String firstDialect;
  private @Nullable List<String> dialects;
  private @Nullable Duration retryAfter;
  /** What most responses never need, allocated on first use (keeps the collector small). */
  private @Nullable RareSignals rare;
  private boolean throttled;
  /** The server's retry verdict: null when none was reported. */
  private @Nullable Boolean shouldRetry;
  /** The request's cost as the server counted it; -1 when none was reported. */
  private long cost = -1;

  private RareSignals rare() {
    RareSignals r = rare;
    if (r == null) {
      r = new RareSignals();
      rare = r;
    }
    return r;
  }

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
      if (firstDialect == null) {
        firstDialect = dialect;
      } else if (dialects == null) {
        if (!firstDialect.equals(dialect)) {
          dialects = new ArrayList<>(4);
          dialects.add(firstDialect);
          dialects.add(dialect);
        }
      } else if (!dialects.contains(dialect)) {
        dialects.add(dialect);
      }
    }
  }

  @Override
  public void policy(QuotaPolicy policy) {
    policy(policy, UNKNOWN_FIELD, UNKNOWN_FIELD);
  }

  @Override
  public void policy(QuotaPolicy policy, String quotaField, String windowField) {
    if (!nameAcceptable(quotaField, policy.name(), policy.partitionKey())) {
      return;
    }
    recognised();
    if (age > 0) {
      rare().droppedForCache++;
      return;
    }
    int count = policies != null ? policies.size() : firstPolicy != null ? 1 : 0;
    for (int i = 0; i < count; i++) {
      QuotaPolicy existing = policies != null ? policies.get(i) : firstPolicy;
      if (existing.name().equals(policy.name())
          && existing.partitionKey().equals(policy.partitionKey())) {
        return;
      }
    }
    if (count >= MAX_ITEMS) {
      dropItem(quotaField);
      return;
    }
    QuotaPolicy kept = Capping.policy(this, caps, policy, quotaField, windowField);
    if (firstPolicy == null) {
      firstPolicy = kept;
    } else {
      if (policies == null) {
        policies = new ArrayList<>(4);
        policies.add(firstPolicy);
      }
      policies.add(kept);
    }
  }

  @Override
  public void limit(QuotaLimit limit) {
    limit(limit, UNKNOWN_FIELD, UNKNOWN_FIELD);
  }

  @Override
  public void limit(QuotaLimit limit, String remainingField, String resetField) {
    if (!nameAcceptable(remainingField, limit.policy(), limit.partitionKey())) {
      return;
    }
    recognised();
    if (age > 0) {
      rare().droppedForCache++;
      return;
    }
    int count = limits != null ? limits.size() : firstLimit != null ? 1 : 0;
    for (int i = 0; i < count; i++) {
      QuotaLimit existing = limits != null ? limits.get(i) : firstLimit;
      if (existing.policy().equals(limit.policy())
          && existing.partitionKey().equals(limit.partitionKey())) {
        return;
      }
    }
    if (count >= MAX_ITEMS) {
      dropItem(remainingField);
      return;
    }
    QuotaLimit kept = Capping.limit(this, caps, limit, remainingField, resetField);
    if (firstLimit == null) {
      firstLimit = kept;
    } else {
      if (limits == null) {
        limits = new ArrayList<>(4);
        limits.add(firstLimit);
      }
      limits.add(kept);
    }
  }

  @Override
  public void reset(QuotaReset reset, String field) {
    if (!nameAcceptable(field, reset.policy(), reset.partitionKey())) {
      return;
    }
    recognised();
    if (age > 0) {
      rare().droppedForCache++;
      return;
    }
    rare().addReset(this, reset, field, caps.maxReset());
  }

  @Override
  public void documentedDelay(Duration delay, String source) {
    if (delay.isNegative()) {
      return;
    }
    recognised();
    RareSignals r = rare();
    if (r.documentedDelay == null) {
      r.documentedDelay = capRetry(UNKNOWN_FIELD, delay);
    }
  }

  @Override
  public void retryAfter(Duration delay) {
    retryAfter(delay, UNKNOWN_FIELD);
  }

  @Override
  public void retryAfter(Duration delay, String field) {
    if (delay.isNegative()) {
      addWarning(field, SignalWarning.Kind.DROPPED, "negative delay " + Capping.seconds(delay));
      return;
    }
    recognised();
    if (retryAfter != null) {
      return;
    }
    retryAfter = capRetry(field, delay);
  }

  /** Applies the retry cap to a delay from {@code field}, warning when it clamps. */
  Duration capRetry(String field, Duration delay) {
    return Capping.retry(this, caps, field, delay);
  }

  @Override
  public void shouldRetry(boolean retry, String field) {
    recognised();
    if (shouldRetry == null) {
      shouldRetry = retry;
    }
  }

  @Override
  public void cost(long units, String field) {
    if (units < 0) {
      addWarning(field, SignalWarning.Kind.DROPPED, "negative cost " + units);
      return;
    }
    recognised();
    if (cost < 0) {
      cost = units;
    }
  }

  Optional<Boolean> shouldRetryValue() {
    return Optional.ofNullable(shouldRetry);
  }

  OptionalLong costValue() {
    return cost < 0 ? OptionalLong.empty() : OptionalLong.of(cost);
  }

  @Override
  public void throttled() {
    recognised();
    throttled = true;
  }

  @Override
  public void warn(String field, SignalWarning.Kind kind, String message) {
    addWarning(field, kind, message); // a warning alone is not recognising something
  }

  /** Adds a warning that no dialect raised (reader-level: body, Age, a failing dialect). */
  void addWarning(String field, SignalWarning.Kind kind, String message) {
    SignalWarnings w = warnings;
    if (w == null) {
      w = new SignalWarnings();
      warnings = w;
    }
    w.add(field, kind, message);
  }

  private void dropItem(String field) {
    rare().dropItem(field);
  }

  private boolean nameAcceptable(String field, String name, Optional<String> partitionKey) {
    if (name.length() > MAX_NAME_LENGTH
        || (partitionKey.isPresent() && partitionKey.get().length() > MAX_NAME_LENGTH)) {
      addWarning(field, SignalWarning.Kind.DROPPED,
          "policy name or partition key longer than " + MAX_NAME_LENGTH + " characters: "
              + FieldValues.quote(name));
      return false;
    }
    return true;
  }

  /** Adds the summary warnings; call once after every dialect ran. */
  void finish() {
    RareSignals r = rare;
    if (r != null && r.droppedForCache > 0) {
      addWarning("age", SignalWarning.Kind.CACHED,
          "response served from cache (Age: " + age + "); " + r.droppedForCache
              + " policy and limit values ignored (draft section 7.3)");
    }
    if (r != null && r.droppedItems > 0) {
      addWarning(r.droppedItemsField, SignalWarning.Kind.DROPPED,
          r.droppedItems + " policies or limits past the first " + MAX_ITEMS + " ignored");
    }
    if (warnings != null) {
      warnings.summarise();
    }
  }

  /** Returns the policies kept, in order; immutable. */
  List<QuotaPolicy> policies() {
    return immutable(firstPolicy, policies);
  }

  /** Returns the limits kept, in order; immutable. */
  List<QuotaLimit> limits() {
    return immutable(firstLimit, limits);
  }

  /**
   * Returns the resets reported without a count, in order, except those of a policy (and
   * partition key) that also has a limit; immutable.
   */
  List<QuotaReset> resets() {
    return rare == null ? List.of() : rare.resets(this);
  }

  boolean hasLimit(String policy, Optional<String> partitionKey) {
    int count = limits != null ? limits.size() : firstLimit != null ? 1 : 0;
    for (int i = 0; i < count; i++) {
      QuotaLimit existing = limits != null ? limits.get(i) : firstLimit;
      if (existing.policy().equals(policy) && existing.partitionKey().equals(partitionKey)) {
        return true;
      }
    }
    return false;
  }

  Optional<Duration> documentedDelayValue() {
    return Optional.ofNullable(rare == null ? null : rare.documentedDelay);
  }

  /** Returns the warnings, in order; immutable. */
  List<SignalWarning> warnings() {
    return warnings == null ? List.of() : warnings.list();
  }

  /** Returns the names of the dialects that recognised something, in order; immutable. */
  List<String> dialects() {
    return immutable(firstDialect, dialects);
  }

  private static <T> List<T> immutable(@Nullable T first, @Nullable List<T> all) {
    if (all != null) {
      return List.copyOf(all);
    }
    return first == null ? List.of() : List.of(first);
  }

  Optional<Duration> retryAfterValue() {
    return Optional.ofNullable(retryAfter);
  }

  boolean throttledReported() {
    return throttled;
  }

  boolean hasZeroRemaining() {
    if (limits != null) {
      for (int i = 0; i < limits.size(); i++) {
        if (limits.get(i).remaining() == 0) {
          return true;
        }
      }
      return false;
    }
    return firstLimit != null && firstLimit.remaining() == 0;
  }
}
