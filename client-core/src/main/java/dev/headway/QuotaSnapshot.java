package dev.headway;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link Pacer} knows of one partition's quota at one moment. TODO(issue 3): per-policy
 * detail.
 *
 * @param partition the partition key
 * @param policies the state of each policy known for the partition
 */
public record QuotaSnapshot(String partition, List<PolicySnapshot> policies) {
  /** Validates the components and makes the list immutable. */
  public QuotaSnapshot {
    Objects.requireNonNull(partition, "partition");
    policies = List.copyOf(policies);
  }
}
