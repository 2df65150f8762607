package dev.headway.store;

import java.util.Objects;

/**
 * What a store keeps state for: one policy of one partition, as the pacer names them (for
 * example partition {@code https://api.github.com:443}, policy {@code core}).
 *
 * <p>Both names are at most {@link #MAX_LENGTH} characters long and contain no control
 * characters, so that a store can turn them into keys safely. Immutable and thread-safe.
 *
 * @param partition the partition's name; not empty
 * @param policy the policy's name within the partition; not empty
 */
public record QuotaKey(String partition, String policy) {
  /** The longest partition or policy name accepted: 512 characters. */
  public static final int MAX_LENGTH = 512;

  /**
   * Validates the names.
   *
   * @param partition the partition's name; not empty
   * @param policy the policy's name within the partition; not empty
   * @throws IllegalArgumentException if a name is empty, longer than {@link #MAX_LENGTH} or
   *     contains a control character
   */
  public QuotaKey {
    check("partition", partition);
    check("policy", policy);
  }

  private static void check(String field, String value) {
    Objects.requireNonNull(value, field + " must not be null");
    if (value.isEmpty() || value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          field + " must have 1 to " + MAX_LENGTH + " characters but had " + value.length());
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException(
            field + " must not contain control characters but had one at index " + i);
      }
    }
  }
}
