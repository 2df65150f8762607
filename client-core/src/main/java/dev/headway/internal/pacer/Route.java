package dev.headway.internal.pacer;

/**
 * One route of a partition: requests of one method and path shape (ids collapsed, see
 * {@link Routes}), with the scope attribute if one is configured. Owns which server policies
 * its responses named (the policies that govern it) and the units of its permits in flight.
 * Guarded by the partition's monitor.
 */
final class Route {
  final long hash;
  final String key;
  /** The server policies this route's responses named (copy-on-write; identity matters). */
  PolicyState[] governs = Partition.NO_POLICIES;
  final InFlight inFlight = new InFlight();
  long lastUsedNanos;

  Route(long hash, String key, long nowNanos) {
    this.hash = hash;
    this.key = key;
    this.lastUsedNanos = nowNanos;
  }

  /** Whether a response of this route named a policy: then it governs only what it named. */
  boolean learned() {
    return governs.length > 0;
  }

  boolean names(PolicyState policy) {
    for (PolicyState p : governs) {
      if (p == policy) {
        return true;
      }
    }
    return false;
  }

  /** Adds {@code policy} to what governs this route; returns whether it was new. */
  boolean add(PolicyState policy) {
    if (names(policy)) {
      return false;
    }
    PolicyState[] copy = java.util.Arrays.copyOf(governs, governs.length + 1);
    copy[governs.length] = policy;
    governs = copy;
    return true;
  }

  /** Forgets {@code policy} (it left the partition); returns whether it was named. */
  boolean forget(PolicyState policy) {
    PolicyState[] old = governs;
    for (int i = 0; i < old.length; i++) {
      if (old[i] == policy) {
        PolicyState[] copy = new PolicyState[old.length - 1];
        System.arraycopy(old, 0, copy, 0, i);
        System.arraycopy(old, i + 1, copy, i, old.length - i - 1);
        governs = copy.length == 0 ? Partition.NO_POLICIES : copy;
        return true;
      }
    }
    return false;
  }

  /** Whether this route is known not to count against {@code policy}. */
  boolean excludes(PolicyState policy) {
    return learned() && !policy.declared() && !policy.hostWide && !names(policy);
  }
}
