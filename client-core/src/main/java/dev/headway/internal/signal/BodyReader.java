package dev.headway.internal.signal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.headway.HttpFields;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import dev.headway.dialect.FieldValues;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads the rate-limit hints of a JSON error body: an RFC 9457 problem type and the draft's
 * {@code violated-policies} member (draft section 5), {@code retry_after} / {@code retryAfter}
 * (seconds, fractional allowed: Discord, Slack-style servers, Salesforce Marketing Cloud,
 * Django REST framework) at the top level or inside an {@code error} object, and Google's
 * {@code error.details[].retryDelay} ({@code "12s"}, {@code "2.500s"}).
 *
 * <p>Only statuses 403, 429 and 503 with a JSON content type ({@code application/json},
 * {@code application/problem+json}, any {@code +json}) are read, and at most
 * {@link SignalParser#MAX_BODY_BYTES} bytes of them: a longer body is truncated and, being
 * invalid JSON then, yields a warning. Jackson's read constraints bound nesting and number
 * length. Thread-safe.
 */
public final class BodyReader {
  static final String PROBLEM_TYPES = "https://iana.org/assignments/http-problem-types#";
  private static final int MAX_STRING = 2048;

  private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder()
          .maxNestingDepth(64)
          .maxNumberLength(64)
          .maxStringLength(64 * 1024)
          .build())
      .build());

  private BodyReader() {}

  /** What the body said. */
  record Result(Optional<Duration> retryAfter, Optional<String> problemType,
      List<String> violatedPolicies) {
    static final Result NONE = new Result(Optional.empty(), Optional.empty(), List.of());
  }

  /**
   * Returns whether a response's body is read for hints: a 403, 429 or 503 with a JSON content
   * type. The one rule, shared by the parser and the adapters (through
   * {@link dev.headway.SignalParser#readsBody}).
   */
  public static boolean applies(int status, HttpFields headers) {
    if (status != 429 && status != 503 && status != 403) {
      return false;
    }
    return jsonMediaType(headers.firstValue("content-type").orElse("")) != null;
  }

  /** Returns the lower-cased JSON media type of a Content-Type value, or null if not JSON. */
  static @Nullable String jsonMediaType(String contentType) {
    int semicolon = contentType.indexOf(';');
    String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim()
        .toLowerCase(Locale.ROOT);
    if (type.equals("application/json") || type.equals("text/json") || type.endsWith("+json")) {
      return type;
    }
    return null;
  }

  static Result read(byte[] body, HttpFields headers, SignalCollector sink) {
    int length = Math.min(body.length, SignalParser.MAX_BODY_BYTES);
    if (length == 0) {
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
    boolean problemJson = "application/problem+json".equals(
        jsonMediaType(headers.firstValue("content-type").orElse("")));

    Optional<String> problemType = Optional.empty();
    JsonNode type = root.get("type");
    if (type != null && type.isTextual() && type.textValue().length() <= MAX_STRING
        && (problemJson || type.textValue().startsWith(PROBLEM_TYPES))) {
      problemType = Optional.of(type.textValue());
    }

    List<String> violated = List.of();
    JsonNode policies = root.get("violated-policies");
    if (policies != null) {
      if (policies.isArray()) {
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
        violated = names;
      } else {
        sink.addWarning("body", SignalWarning.Kind.MALFORMED,
            "violated-policies is not an array: " + abbreviate(policies));
      }
    }

    Duration retry = retryHint(root, sink);
    JsonNode error = root.get("error");
    if (retry == null && error != null && error.isObject()) {
      retry = retryHint(error, sink);
      if (retry == null) {
        retry = googleRetryDelay(error.get("details"), sink);
      }
    }
    return new Result(Optional.ofNullable(retry == null ? null : sink.capRetry("body", retry)),
        problemType, violated);
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
      if ((hint.isDouble() || hint.isFloat()) && !Double.isFinite(hint.doubleValue())) {
        sink.addWarning(field, SignalWarning.Kind.DROPPED, "not a finite number");
        return null;
      }
      BigDecimal seconds = hint.decimalValue();
      if (seconds.signum() < 0) {
        sink.addWarning(field, SignalWarning.Kind.DROPPED, "negative: " + seconds);
        return null;
      }
      if (seconds.compareTo(BigDecimal.valueOf(1_000_000_000_000L)) > 0) {
        sink.addWarning(field, SignalWarning.Kind.DROPPED, "number too large: " + abbreviate(hint));
        return null;
      }
      long whole = seconds.longValue();
      long nanos = seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).longValue();
      return Duration.ofSeconds(whole, nanos);
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
