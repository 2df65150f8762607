package dev.headway.internal.signal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads the GraphQL cost extension of a JSON body ({@code extensions.cost.throttleStatus}, as
 * Shopify's GraphQL Admin API sends it) for {@link BodyReader}: it owns the leaky-bucket
 * arithmetic that turns {@code maximumAvailable}, {@code currentlyAvailable} and
 * {@code restoreRate} into a policy, a limit and the wait a throttled or unaffordable query
 * implies. Stateless.
 */
final class GraphQlCostReader {
  private static final String GRAPHQL_COST = BodyReader.GRAPHQL_COST;
  private static final String NAME = BodyReader.NAME;

  private GraphQlCostReader() {}

  /**
   * Reads {@code extensions.cost} of a GraphQL response into policy and limit
   * {@value BodyReader#GRAPHQL_COST}; returns the wait a throttled or unaffordable query
   * implies, or null.
   */
  static @Nullable Duration graphQlCost(JsonNode root, SignalCollector sink) {
    JsonNode cost = path(root, "extensions", "cost");
    JsonNode status = cost == null ? null : cost.get("throttleStatus");
    if (status == null || !status.isObject()) {
      return null;
    }
    sink.begin(NAME);
    String field = "body.extensions.cost.throttleStatus";
    BigDecimal maximum = member(status, "maximumAvailable", field, sink);
    BigDecimal available = member(status, "currentlyAvailable", field, sink);
    BigDecimal rate = member(status, "restoreRate", field, sink);
    if (maximum == null || available == null) {
      return null;
    }
    boolean refills = rate != null && rate.signum() > 0;
    Optional<Duration> window = refills && maximum.signum() > 0
        ? Optional.of(BodyReader.seconds(maximum.divide(rate, 9, RoundingMode.CEILING)))
        : Optional.empty();
    Optional<Duration> reset = refills
        ? Optional.of(BodyReader.seconds(maximum.subtract(available).max(BigDecimal.ZERO)
            .divide(rate, 9, RoundingMode.CEILING)))
        : Optional.empty();
    sink.policy(new QuotaPolicy(GRAPHQL_COST, maximum.setScale(0, RoundingMode.DOWN)
        .longValueExact(), QuotaUnit.REQUESTS, window, Optional.empty(), NAME), field, field);
    sink.limit(new QuotaLimit(GRAPHQL_COST, available.setScale(0, RoundingMode.DOWN)
        .longValueExact(), reset, Optional.empty(), NAME), field, field);

    boolean throttled = false;
    JsonNode errors = root.get("errors");
    if (errors != null && errors.isArray()) {
      int seen = 0;
      for (JsonNode error : errors) {
        if (++seen > SignalCollector.MAX_ITEMS) {
          break;
        }
        JsonNode code = path(error, "extensions", "code");
        if (code != null && code.isTextual() && code.textValue().equals("THROTTLED")) {
          throttled = true;
          break;
        }
      }
    }
    if (throttled) {
      sink.throttled();
    }
    JsonNode requestedNode = cost.get("requestedQueryCost");
    BigDecimal requested = requestedNode == null || requestedNode.isNull() ? null
        : BodyReader.number(requestedNode, "body.extensions.cost.requestedQueryCost", sink);
    if (!refills) {
      return null;
    }
    BigDecimal missing = requested == null ? null : requested.subtract(available);
    if (missing != null && missing.signum() > 0) {
      return BodyReader.seconds(missing.divide(rate, 9, RoundingMode.CEILING));
    }
    if (throttled) {
      // Throttled without a cost to compare: one point's worth of leaking.
      return BodyReader.seconds(BigDecimal.ONE.divide(rate, 9, RoundingMode.CEILING));
    }
    return null;
  }

  private static @Nullable BigDecimal member(JsonNode object, String name, String field,
      SignalCollector sink) {
    JsonNode node = object.get(name);
    if (node == null || node.isNull()) {
      return null;
    }
    return BodyReader.number(node, field + "." + name, sink);
  }

  private static @Nullable JsonNode path(JsonNode node, String first, String second) {
    JsonNode child = node.get(first);
    if (child == null || !child.isObject()) {
      return null;
    }
    JsonNode grandChild = child.get(second);
    return grandChild == null || !grandChild.isObject() && !grandChild.isValueNode()
        ? null : grandChild;
  }
}
