package dev.headway;

import dev.headway.internal.pacer.PartitionNames;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a {@link Pacer} knows of one partition's quota at one moment: one {@link PolicySnapshot}
 * per policy (those the servers advertised and those the client declared), and how long the
 * partition is still held back after a throttled response, how many of its permits are in flight
 * and how many callers wait in its line. Empty policies mean nothing is known: requests go unpaced
 * (a few at a time on first contact, until the server's first answer).
 *
 * <p>Immutable and thread-safe.
 *
 * @param partition the partition key
 * @param policies the state of each policy known for the partition
 * @param heldFor how long the partition is still held back after a throttled response, if it is
 * @param inFlight how many permits of the partition are in flight: their send time has come (sent,
 *     as far as the pacer knows) and they are neither completed nor released yet
 * @param waiting how many callers wait: given a send time still ahead (their units taken, nothing
 *     sent), or in the partition's line for units a policy does not have yet. A caller is counted
 *     in one of {@code inFlight} and {@code waiting}, never both
 * @param retriesLeft how many retries of throttled or unavailable responses the partition's
 *     {@link RetryBudget} still pays for; empty when the pacer has no retry budget
 */
public record QuotaSnapshot(String partition, List<PolicySnapshot> policies,
    Optional<Duration> heldFor, int inFlight, int waiting, OptionalInt retriesLeft) {
  /**
   * Validates the components and makes the list immutable.
   *
   * @param partition the partition key
   * @param policies the state of each policy known for the partition; copied
   * @param heldFor how long the partition is still held back after a throttled response, if it is
   * @param inFlight how many permits of the partition are in flight; not negative
   * @param waiting how many callers wait in the partition's line; not negative
   * @param retriesLeft how many retries the partition's retry budget still pays for; not
   *     negative; empty when the pacer has no retry budget
   * @throws IllegalArgumentException if a count is negative
   */
  public QuotaSnapshot {
    Objects.requireNonNull(partition, "partition must not be null");
    policies = List.copyOf(policies);
    Objects.requireNonNull(heldFor, "heldFor must not be null");
    if (inFlight < 0 || waiting < 0) {
      throw new IllegalArgumentException("inFlight and waiting must not be negative but were "
          + inFlight + " and " + waiting);
    }
    Objects.requireNonNull(retriesLeft, "retriesLeft must not be null");
    if (retriesLeft.isPresent() && retriesLeft.getAsInt() < 0) {
      throw new IllegalArgumentException("retriesLeft must not be negative but was "
          + retriesLeft.getAsInt());
    }
  }

  /**
   * Creates a snapshot of a partition without retry-budget information.
   *
   * @param partition the partition key
   * @param policies the state of each policy known for the partition; copied
   * @param heldFor how long the partition is still held back after a throttled response, if it is
   * @param inFlight how many permits of the partition are in flight; not negative
   * @param waiting how many callers wait in the partition's line; not negative
   * @throws IllegalArgumentException if a count is negative
   */
  public QuotaSnapshot(String partition, List<PolicySnapshot> policies,
      Optional<Duration> heldFor, int inFlight, int waiting) {
    this(partition, policies, heldFor, inFlight, waiting, OptionalInt.empty());
  }

  /**
   * Creates a snapshot of a partition with nothing in flight and no one waiting.
   *
   * @param partition the partition key
   * @param policies the state of each policy known for the partition; copied
   * @param heldFor how long the partition is still held back after a throttled response, if it is
   */
  public QuotaSnapshot(String partition, List<PolicySnapshot> policies,
      Optional<Duration> heldFor) {
    this(partition, policies, heldFor, 0, 0);
  }

  /**
   * Creates a snapshot of a partition that is not held back.
   *
   * @param partition the partition key
   * @param policies the state of each policy known for the partition; copied
   */
  public QuotaSnapshot(String partition, List<PolicySnapshot> policies) {
    this(partition, policies, Optional.empty(), 0, 0);
  }

  /**
   * Returns the policy named {@code name}, if known.
   *
   * @param name the policy's name, as {@link PolicySnapshot#name()} spells it
   * @return the policy's state, or empty if no policy of the partition has that name
   */
  public Optional<PolicySnapshot> policy(String name) {
    for (PolicySnapshot p : policies) {
      if (p.name().equals(name)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Returns the most restrictive policy with a known remaining count: the fewest units left, and
   * of equals the one that resets last.
   *
   * @return the policy, or empty if no policy has a known remaining count
   */
  public Optional<PolicySnapshot> mostRestrictive() {
    PolicySnapshot best = null;
    for (PolicySnapshot p : policies) {
      if (p.remaining().isEmpty()) {
        continue;
      }
      if (best == null || p.remaining().getAsLong() < best.remaining().getAsLong()
          || (p.remaining().getAsLong() == best.remaining().getAsLong()
              && p.timeToReset().orElse(Duration.ZERO)
                  .compareTo(best.timeToReset().orElse(Duration.ZERO)) > 0)) {
        best = p;
      }
    }
    return Optional.ofNullable(best);
  }

  /**
   * Returns one readable line for a person watching the partition's queue: the partition, then
   * each policy as {@link PolicySnapshot#toString} prints it but without its units in flight,
   * separated by {@code ; }, then {@code , N in flight}: the calls sent and not answered yet
   * ({@link #inFlight}); e.g. {@code https://api.example.com:443: fixed: 0 of 10 requests left
   * per 1 s, resets in 0.48 s (from ietf-structured, 0.01 s old), 0 in flight}. A hold after a
   * throttled response adds {@code , held for 20 s}; callers not sent yet add
   * {@code , 12 waiting} ({@link #waiting}: in line for units, or given a send time still ahead);
   * a spent retry budget adds {@code , retry budget spent}. Each caller is counted once: with the
   * quota spent and 10 callers queued for its reset the line ends {@code , 0 in flight,
   * 10 waiting}. A partition without any policy prints {@code no quota known} (with
   * {@code , 1 in flight} if calls are out). A partition key with more than a plain origin is
   * shown only as its origin and a short hash, as in {@link PacerEvent} texts ({@link #partition}
   * returns the key itself). The format is for people (logs, consoles) and may change; read the
   * components in code.
   */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(PartitionNames.shown(partition)).append(": ");
    if (policies.isEmpty()) {
      text.append("no quota known");
    }
    for (int i = 0; i < policies.size(); i++) {
      text.append(i == 0 ? "" : "; ").append(policies.get(i).text(false));
    }
    if (!policies.isEmpty() || inFlight > 0) {
      text.append(", ").append(inFlight).append(" in flight");
    }
    heldFor.ifPresent(h -> text.append(", held for ").append(Texts.seconds(h)));
    if (waiting > 0) {
      text.append(", ").append(waiting).append(" waiting");
    }
    if (retriesLeft.isPresent() && retriesLeft.getAsInt() == 0) {
      text.append(", retry budget spent");
    }
    return text.toString();
  }
}
