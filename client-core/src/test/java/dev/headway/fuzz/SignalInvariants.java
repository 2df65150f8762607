package dev.headway.fuzz;

import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.RateLimitSignal;
import dev.headway.SanityCaps;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import dev.headway.dialect.Dialect;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What every {@link RateLimitSignal} must satisfy, whatever the response: the parser's contract
 * (documented on {@link SignalParser}, {@link RateLimitSignal} and {@link SanityCaps}) written as
 * checks. A violation throws {@link AssertionError} naming the input. Stateless.
 */
final class SignalInvariants {
  /**
   * The parser turns an exception inside itself or a dialect into a warning, so that a request
   * never fails because of a signal; for the built-in code such a warning is still a bug (every
   * built-in parser is meant to be total), and it is how an escaped exception shows here.
   */
  private static final Pattern INTERNAL_FAILURE =
      Pattern.compile("^(signal parsing failed: |dialect \\S+ failed: ).*", Pattern.DOTALL);
  /** At most 32 warnings, plus the one saying how many more were suppressed. */
  private static final int MAX_WARNINGS = 33;
  private static final int MAX_ITEMS = 64;
  private static final int MAX_NAME_LENGTH = 256;

  private SignalInvariants() {}

  /**
   * Parses a response and checks the result: no exception, the caps and bounds, the same result
   * on a second parse, the body ignored where {@link SignalParser#readsBody} says so, and bytes
   * allocated linear in the input's size.
   */
  static RateLimitSignal check(SignalParser parser, int status, HttpFields headers,
      byte[] body, Instant receivedAt) {
    long inputChars = body == null ? 0 : body.length;
    for (Map.Entry<String, List<String>> e : headers.asMap().entrySet()) {
      for (String value : e.getValue()) {
        inputChars += e.getKey().length() + value.length() + 4;
      }
    }
    java.util.function.Supplier<String> input = () -> describe(status, headers, body);
    RateLimitSignal[] parsed = new RateLimitSignal[1];
    AllocationMeter.runLinear(() -> parsed[0] = parser.parse(status, headers, body, receivedAt),
        inputChars, 1, () -> "parsing " + input.get());
    RateLimitSignal signal = parsed[0];
    expect(signal != null, "a signal", input);
    int expectedStatus = status < 0 || status > 999 ? 0 : status;
    expect(signal.status() == expectedStatus, "status " + expectedStatus + " but was "
        + signal.status(), input);
    for (SignalWarning warning : signal.warnings()) {
      expect(!INTERNAL_FAILURE.matcher(warning.message()).matches(),
          "no exception inside the parser, but: " + warning.message(), input);
    }
    expect(signal.warnings().size() <= MAX_WARNINGS,
        "at most " + MAX_WARNINGS + " warnings but " + signal.warnings().size(), input);

    SanityCaps caps = parser.caps();
    Set<String> known = new HashSet<>();
    for (Dialect dialect : parser.dialects()) {
      known.add(dialect.name());
    }
    known.add("json-body");
    expect(signal.policies().size() <= MAX_ITEMS, "at most 64 policies", input);
    expect(signal.limits().size() <= MAX_ITEMS, "at most 64 limits", input);
    Set<String> keys = new HashSet<>();
    for (QuotaPolicy policy : signal.policies()) {
      expect(policy.quota() >= 0 && policy.quota() <= caps.maxQuota(),
          "quota within [0, " + caps.maxQuota() + "]: " + policy, input);
      expect(policy.window().isEmpty() || (isPositive(policy.window().get())
          && policy.window().get().compareTo(caps.maxWindow()) <= 0),
          "window positive and within " + caps.maxWindow() + ": " + policy, input);
      expect(namesBounded(policy.name(), policy.partitionKey()), "name bounded: " + policy,
          input);
      expect(known.contains(policy.dialect()), "a known dialect: " + policy, input);
      expect(keys.add(policy.name() + "\u0000" + policy.partitionKey()),
          "one policy per name and partition key: " + policy, input);
    }
    keys.clear();
    for (QuotaLimit limit : signal.limits()) {
      expect(limit.remaining() >= 0 && limit.remaining() <= caps.maxRemaining(),
          "remaining within [0, " + caps.maxRemaining() + "]: " + limit, input);
      expect(limit.reset().isEmpty() || (!limit.reset().get().isNegative()
          && limit.reset().get().compareTo(caps.maxReset()) <= 0),
          "reset within [0, " + caps.maxReset() + "]: " + limit, input);
      expect(namesBounded(limit.policy(), limit.partitionKey()), "name bounded: " + limit,
          input);
      expect(known.contains(limit.dialect()), "a known dialect: " + limit, input);
      expect(keys.add(limit.policy() + "\u0000" + limit.partitionKey()),
          "one limit per name and partition key: " + limit, input);
    }
    for (dev.headway.QuotaReset reset : signal.resets()) {
      expect(!reset.reset().isNegative() && reset.reset().compareTo(caps.maxReset()) <= 0,
          "count-less reset within [0, " + caps.maxReset() + "]: " + reset, input);
    }
    for (SignalWarning warning : signal.warnings()) {
      // A reset past maxReset is not believed: dropped (the count kept), never clamped.
      expect(warning.kind() != SignalWarning.Kind.CAPPED
          || !warning.message().contains(": reset "),
          "a reset past its cap dropped, not clamped: " + warning, input);
    }
    for (Optional<Duration> retry : List.of(signal.retryAfter(), signal.bodyRetryAfter())) {
      expect(retry.isEmpty() || (!retry.get().isNegative()
          && retry.get().compareTo(caps.maxRetryAfter()) <= 0),
          "retry delay within [0, " + caps.maxRetryAfter() + "]: " + retry, input);
    }
    expect(signal.violatedPolicies().size() <= MAX_ITEMS, "at most 64 violated policies", input);
    for (String name : signal.violatedPolicies()) {
      expect(name.length() <= MAX_NAME_LENGTH, "violated policy name bounded", input);
    }
    expect(signal.problemType().isEmpty() || signal.problemType().get().length() <= 2048,
        "problem type bounded", input);
    expect(new HashSet<>(signal.dialects()).size() == signal.dialects().size()
        && known.containsAll(signal.dialects()), "distinct known dialects: "
        + signal.dialects(), input);
    expect(status != 429 || signal.throttled(), "a 429 is throttled", input);
    if (age(headers) > 0) {
      expect(signal.policies().isEmpty() && signal.limits().isEmpty(),
          "nothing believed of a cached response (Age > 0)", input);
    }

    RateLimitSignal again = parser.parse(status, headers, body, receivedAt);
    expect(again.equals(signal), "the same signal from the same response, but first " + signal
        + " then " + again, input);
    if (body != null && !SignalParser.readsBody(status, headers)) {
      RateLimitSignal withoutBody = parser.parse(status, headers, receivedAt);
      expect(withoutBody.equals(signal), "a body that is not read changes nothing, but "
          + withoutBody + " without it and " + signal + " with it", input);
    }
    return signal;
  }

  private static boolean isPositive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  private static boolean namesBounded(String name, Optional<String> partitionKey) {
    return name.length() <= MAX_NAME_LENGTH
        && (partitionKey.isEmpty() || partitionKey.get().length() <= MAX_NAME_LENGTH);
  }

  /** The {@code Age} in whole seconds if it is a plain non-negative integer, else 0. */
  private static long age(HttpFields headers) {
    String value = headers.firstValue("age").orElse("").trim();
    if (value.isEmpty() || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return 0;
    }
    return value.chars().anyMatch(c -> c != '0') ? 1 : 0;
  }

  private static void expect(boolean holds, String what,
      java.util.function.Supplier<String> input) {
    if (!holds) {
      throw new AssertionError("expected " + what + "\n  for " + input.get());
    }
  }

  static String describe(int status, HttpFields headers, byte[] body) {
    StringBuilder sb = new StringBuilder().append(status);
    if (body != null) {
      sb.append(" | body ").append(StructuredFieldFuzzTest.quote(
          new String(body, java.nio.charset.StandardCharsets.ISO_8859_1)));
    }
    int shown = 0;
    for (Map.Entry<String, List<String>> e : headers.asMap().entrySet()) {
      for (String value : e.getValue()) {
        if (shown++ == 20) {
          return sb.append(" ...").toString();
        }
        sb.append(" | ").append(StructuredFieldFuzzTest.quote(e.getKey())).append(": ")
            .append(StructuredFieldFuzzTest.quote(value));
      }
    }
    return sb.toString();
  }
}
