package dev.headway.internal.signal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.QuotaUnit;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.FieldValues;
import dev.headway.dialect.ResetValues;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads the rate-limit hints of a JSON body with Jackson (any 2.x from 2.12: only
 * {@code ObjectMapper.readTree} and {@code JsonNode} accessors that 2.12 already had).
 *
 * <p>On a 403, 429 or 503 ({@link BodyHints#applies}): an RFC 9457 problem type and the draft's
 * {@code violated-policies} member (draft section 5); {@code retry_after} / {@code retryAfter}
 * (seconds, fractional allowed: Discord, Salesforce Marketing Cloud, Django REST framework) at
 * the top level (where RFC 9457 puts extension members) or inside an {@code error} object;
 * Google's {@code error.details[].retryDelay} ({@code google.rpc.RetryInfo}: {@code "12s"},
 * {@code "2.500s"}); and Akamai's {@code rateLimit}, {@code rateLimitRemaining} and
 * {@code rateLimitNext} (an RFC 3339 instant: when the next request may go), reported as policy
 * {@code "default"} so that the same values in headers are not counted twice. A body with no
 * JSON {@code Content-Type} is read only when it starts with <code>{</code>.
 *
 * <p>On any status, when the caller passed the body: a GraphQL cost extension
 * ({@code extensions.cost.throttleStatus}: {@code maximumAvailable}, {@code currentlyAvailable},
 * {@code restoreRate}, as Shopify's GraphQL Admin API sends on a 200 too) becomes policy and
 * limit {@code "graphql-cost"} (a leaky bucket: the window is the time to refill from empty, the
 * reset the time to refill from now), and a query whose {@code requestedQueryCost} exceeds what
 * is available, or an error with {@code extensions.code} {@code THROTTLED}, gives the wait until
 * enough has leaked back. Bodies of other statuses are parsed only if they contain
 * {@code "throttleStatus"}.
 *
 * <p>At most {@link SignalParser#MAX_BODY_BYTES} bytes are read: a longer body is truncated and,
 * being invalid JSON then, yields a warning. Nesting deeper than {@link #MAX_DEPTH} is refused
 * before Jackson sees it (Jackson before 2.15 has no nesting limit of its own). Thread-safe.
 *
 * <p>This class owns the detection (which bodies are read) and the JSON shapes of problem
 * details, retry hints and Akamai members; the byte-level pre-scan is {@link BodyPreScan} and
 * the GraphQL cost extension {@link GraphQlCostReader}.
 */
final class BodyReader implements BodyHints {
  static final String PROBLEM_TYPES = "https://iana.org/assignments/http-problem-types#";
  static final BodyReader INSTANCE = new BodyReader();
  static final String GRAPHQL_COST = "graphql-cost";
  static final int MAX_DEPTH = 64;
  private static final int MAX_STRING = 2048;
  static final String NAME = "json-body";
  private static final byte[] THROTTLE_STATUS =
      "\"throttleStatus\"".getBytes(StandardCharsets.US_ASCII);
  private static final BigDecimal MAX_SECONDS = BigDecimal.valueOf(1_000_000_000_000L);

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private BodyReader() {}

  @Override
  public Result read(int status, byte[] body, HttpFields headers, DialectContext context,
      SignalCollector sink) {
    int length = Math.min(body.length, SignalParser.MAX_BODY_BYTES);
    if (length == 0) {
      return Result.NONE;
    }
    String type = BodyHints.mediaType(headers.firstValue("content-type").orElse(""));
    boolean declaredJson = BodyHints.jsonMediaType(type);
    boolean brace = BodyHints.firstByte(body, length) == '{';
    boolean hints = BodyHints.applies(status, headers) && (declaredJson || brace);
    if (!hints && !((declaredJson || brace)
        && BodyPreScan.contains(body, length, THROTTLE_STATUS))) {
      return Result.NONE;
    }
    if (BodyPreScan.tooDeep(body, length)) {
      sink.addWarning("body", SignalWarning.Kind.DROPPED,
          "body nested deeper than " + MAX_DEPTH + " levels not read");
      return Result.NONE;
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(body, 0, length);
    } catch (IOException | RuntimeException e) {
      sink.addWarning("body", SignalWarning.Kind.MALFORMED,
          (body.length > length ? "body truncated at " + length + " bytes and " : "body ")
              + "is not valid JSON");
      return Result.NONE;
    }
    if (root == null || !root.isObject()) {
      return Result.NONE;
    }
    Duration graphQlWait = GraphQlCostReader.graphQlCost(root, sink);
    if (!hints) {
      return graphQlWait == null ? Result.NONE
          : new Result(Optional.of(sink.capRetry("body", graphQlWait)), Optional.empty(),
              List.of());
    }
    boolean problemJson = "application/problem+json".equals(type);

    Optional<String> problemType = Optional.empty();
    JsonNode problem = root.get("type");
    if (problem != null && problem.isTextual() && problem.textValue().length() <= MAX_STRING
        && (problemJson || problem.textValue().startsWith(PROBLEM_TYPES))) {
      problemType = Optional.of(problem.textValue());
    }
    List<String> violated = violatedPolicies(root.get("violated-policies"), sink);
    if (status == 403 && saysRateLimit(root.get("message"))) {
      // GitHub documents 403 for primary and secondary rate limits; its message says so.
      sink.throttled();
    }

    Duration retry = retryHint(root, sink);
    JsonNode error = root.get("error");
    if (retry == null && error != null && error.isObject()) {
      retry = retryHint(error, sink);
      if (retry == null) {
        retry = googleRetryDelay(error.get("details"), sink);
      }
    }
    if (!rateLimitMembers(root, context, sink) && error != null && error.isObject()) {
      rateLimitMembers(error, context, sink);
    }
    if (retry == null) {
      retry = graphQlWait;
    }
    return new Result(Optional.ofNullable(retry == null ? null : sink.capRetry("body", retry)),
        problemType, violated);
  }

  private static boolean saysRateLimit(@Nullable JsonNode message) {
    if (message == null || !message.isTextual() || message.textValue().length() > MAX_STRING) {
      return false;
    }
    return message.textValue().toLowerCase(java.util.Locale.ROOT).contains("rate limit");
  }

  private static List<String> violatedPolicies(@Nullable JsonNode policies,
      SignalCollector sink) {
    if (policies == null) {
      return List.of();
    }
    if (!policies.isArray()) {
      sink.addWarning("body", SignalWarning.Kind.MALFORMED,
          "violated-policies is not an array: " + abbreviate(policies));
      return List.of();
    }
    List<String> names = new ArrayList<>(Math.min(policies.size(), SignalCollector.MAX_ITEMS));
    for (JsonNode name : policies) {
      if (names.size() >= SignalCollector.MAX_ITEMS) {
        sink.addWarning("body", SignalWarning.Kind.DROPPED,
            "violated-policies past the first " + SignalCollector.MAX_ITEMS + " ignored");
        break;
      }
      if (name.isTextual() && name.textValue().length() <= SignalCollector.MAX_NAME_LENGTH) {
        names.add(name.textValue());
      } else {
        sink.addWarning("body", SignalWarning.Kind.MALFORMED,
            "violated-policies member is not a policy name: " + abbreviate(name));
      }
    }
    return names;
  }

  /**
   * Reads Akamai-style members {@code rateLimit}, {@code rateLimitRemaining},
   * {@code rateLimitNext}; returns whether any was present.
   */
  private static boolean rateLimitMembers(JsonNode object, DialectContext context,
      SignalCollector sink) {
    JsonNode limitNode = object.get("rateLimit");
    JsonNode remainingNode = object.get("rateLimitRemaining");
    JsonNode nextNode = object.get("rateLimitNext");
    if (limitNode == null && remainingNode == null && nextNode == null) {
      return false;
    }
    sink.begin(NAME);
    long limit = count(limitNode, "body.rateLimit", sink);
    long remaining = count(remainingNode, "body.rateLimitRemaining", sink);
    Optional<Duration> next = Optional.empty();
    if (nextNode != null && !nextNode.isNull()) {
      if (nextNode.isTextual() && nextNode.textValue().length() <= MAX_STRING) {
        Optional<Instant> instant = FieldValues.rfc3339(nextNode.textValue());
        if (instant.isPresent()) {
          next = Optional.of(ResetValues.until(instant.get(), context));
        } else {
          sink.addWarning("body.rateLimitNext", SignalWarning.Kind.MALFORMED,
              "not an RFC 3339 time: " + abbreviate(nextNode));
        }
      } else {
        sink.addWarning("body.rateLimitNext", SignalWarning.Kind.MALFORMED,
            "not an RFC 3339 time: " + abbreviate(nextNode));
      }
    }
    if (limit >= 0) {
      sink.policy(new QuotaPolicy(QuotaPolicy.DEFAULT_NAME, limit, QuotaUnit.REQUESTS,
          Optional.empty(), Optional.empty(), NAME), "body.rateLimit", "body.rateLimit");
    }
    if (remaining >= 0) {
      sink.limit(new QuotaLimit(QuotaPolicy.DEFAULT_NAME, remaining, next, Optional.empty(),
          NAME), "body.rateLimitRemaining", "body.rateLimitNext");
    } else if (next.isPresent()) {
      sink.reset(new QuotaReset(QuotaPolicy.DEFAULT_NAME, next.get(), Optional.empty(), NAME),
          "body.rateLimitNext");
    }
    return true;
  }

  /** Returns a non-negative whole count (a fraction is truncated); -1 if absent or invalid. */
  private static long count(@Nullable JsonNode node, String field, SignalCollector sink) {
    if (node == null || node.isNull()) {
      return -1;
    }
    BigDecimal value = number(node, field, sink);
    if (value == null) {
      return -1;
    }
    return value.setScale(0, RoundingMode.DOWN).longValueExact();
  }

  /**
   * Returns a finite, non-negative number of at most 10^12, or null after a warning. Numbers in
   * strings are not accepted here.
   */
  static @Nullable BigDecimal number(JsonNode node, String field, SignalCollector sink) {
    if (!node.isNumber()) {
      sink.addWarning(field, SignalWarning.Kind.MALFORMED, "not a number: " + abbreviate(node));
      return null;
    }
    if ((node.isDouble() || node.isFloat()) && !Double.isFinite(node.doubleValue())) {
      sink.addWarning(field, SignalWarning.Kind.DROPPED, "not a finite number");
      return null;
    }
    BigDecimal value = node.decimalValue();
    if (value.signum() < 0) {
      sink.addWarning(field, SignalWarning.Kind.DROPPED, "negative: " + abbreviate(node));
      return null;
    }
    if (value.compareTo(MAX_SECONDS) > 0) {
      sink.addWarning(field, SignalWarning.Kind.DROPPED, "number too large: " + abbreviate(node));
      return null;
    }
    return value;
  }


  static Duration seconds(BigDecimal seconds) {
    long whole = seconds.longValue();
    long nanos = seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).longValue();
    return Duration.ofSeconds(whole, nanos);
  }

  private static @Nullable Duration retryHint(JsonNode object, SignalCollector sink) {
    JsonNode hint = object.get("retry_after");
    String name = "retry_after";
    if (hint == null) {
      hint = object.get("retryAfter");
      name = "retryAfter";
    }
    if (hint == null || hint.isNull()) {
      return null;
    }
    String field = "body." + name;
    if (hint.isNumber()) {
      if ((hint.isIntegralNumber() || Double.isFinite(hint.doubleValue()))
          && hint.decimalValue().compareTo(MAX_SECONDS) > 0) {
        // The longest delay, not garbage: the caps clamp it as they clamp any huge one.
        sink.addWarning(field, SignalWarning.Kind.CAPPED, "number too large: " + abbreviate(hint)
            + ", read as " + MAX_SECONDS + " s");
        return seconds(MAX_SECONDS);
      }
      BigDecimal seconds = number(hint, field, sink);
      return seconds == null ? null : seconds(seconds);
    }
    if (hint.isTextual()) {
      return FieldValues.seconds(field, hint.textValue(), sink).orElse(null);
    }
    sink.addWarning(field, SignalWarning.Kind.MALFORMED, "not a number: " + abbreviate(hint));
    return null;
  }

  private static @Nullable Duration googleRetryDelay(@Nullable JsonNode details,
      SignalCollector sink) {
    if (details == null || !details.isArray()) {
      return null;
    }
    int seen = 0;
    for (JsonNode detail : details) {
      if (++seen > SignalCollector.MAX_ITEMS) {
        break;
      }
      JsonNode delay = detail.get("retryDelay");
      if (delay != null && delay.isTextual()) {
        return FieldValues.goDuration("body.retryDelay", delay.textValue(), sink).orElse(null);
      }
    }
    return null;
  }


  private static String abbreviate(JsonNode node) {
    return FieldValues.quote(node.toString());
  }
}