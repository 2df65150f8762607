package dev.headway.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.RateLimitSignal;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Writes an {@link Explanation} as the JSON object of the {@code headway explain} contract
 * (docs/cli.md, "Output"): {@code status, dialects, retryAfterSeconds, nextRequestSeconds,
 * policies, limits, resets, effective, shouldRetry, cost, action, warnings}, in that order, absent values as
 * {@code null}, seconds as numbers (fractional when needed).
 *
 * <p>Thread-safe.
 */
final class JsonFormat {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectWriter WRITER = new ObjectMapper()
      .configure(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN, true)
      .writer(new DefaultPrettyPrinter(Separators.createDefaultInstance()
              .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
              .withObjectEmptySeparator("")
              .withArrayEmptySeparator(""))
          .withObjectIndenter(new DefaultIndenter("  ", "\n"))
          .withArrayIndenter(new DefaultIndenter("  ", "\n")));

  private JsonFormat() {}

  /** Returns the JSON text, pretty-printed with two-space indents and a final newline. */
  static String write(Explanation explanation) {
    try {
      return WRITER.writeValueAsString(tree(explanation)) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON tree", e);
    }
  }

  /** Returns the JSON tree. */
  static ObjectNode tree(Explanation explanation) {
    RateLimitSignal signal = explanation.signal();
    ObjectNode root = NODES.objectNode();
    root.put("status", signal.status());
    ArrayNode dialects = root.putArray("dialects");
    signal.dialects().forEach(dialects::add);
    putSeconds(root, "retryAfterSeconds", explanation.retryAfter());
    putSeconds(root, "nextRequestSeconds", explanation.nextRequest());
    ArrayNode policies = root.putArray("policies");
    for (QuotaPolicy policy : signal.policies()) {
      ObjectNode node = policies.addObject();
      node.put("name", policy.name());
      node.put("quota", policy.quota());
      node.put("unit", policy.unit().token());
      putSeconds(node, "windowSeconds", policy.window());
      putString(node, "partitionKey", policy.partitionKey());
    }
    ArrayNode limits = root.putArray("limits");
    for (QuotaLimit limit : signal.limits()) {
      ObjectNode node = limits.addObject();
      node.put("policy", limit.policy());
      node.put("remaining", limit.remaining());
      putSeconds(node, "resetSeconds", limit.reset());
      putString(node, "partitionKey", limit.partitionKey());
    }
    ArrayNode resets = root.putArray("resets");
    for (QuotaReset reset : signal.resets()) {
      ObjectNode node = resets.addObject();
      node.put("policy", reset.policy());
      node.put("resetSeconds", Seconds.of(reset.reset()));
      putString(node, "partitionKey", reset.partitionKey());
    }
    ObjectNode effective = root.putObject("effective");
    putLong(effective, "remaining", explanation.effective().remaining());
    putLong(effective, "limit", explanation.effective().limit());
    putSeconds(effective, "resetSeconds", explanation.effective().reset());
    if (signal.shouldRetry().isPresent()) {
      root.put("shouldRetry", signal.shouldRetry().get());
    } else {
      root.putNull("shouldRetry");
    }
    putLong(root, "cost", signal.cost());
    root.put("action", explanation.action());
    ArrayNode warnings = root.putArray("warnings");
    explanation.warnings().forEach(warnings::add);
    return root;
  }

  private static void putSeconds(ObjectNode node, String name, Optional<Duration> value) {
    if (value.isPresent()) {
      node.put(name, Seconds.of(value.get()));
    } else {
      node.putNull(name);
    }
  }

  private static void putLong(ObjectNode node, String name, OptionalLong value) {
    if (value.isPresent()) {
      node.put(name, value.getAsLong());
    } else {
      node.putNull(name);
    }
  }

  private static void putString(ObjectNode node, String name, Optional<String> value) {
    if (value.isPresent()) {
      node.put(name, value.get());
    } else {
      node.putNull(name);
    }
  }
}
