package dev.headway.internal.pacer;

/**
 * One route of a partition: requests of one method and path shape (ids collapsed, see
 * {@link Routes}), with the scope attribute if one is configured. Owns which server policies
 * its responses named (the policies that govern it), the units of its permits in flight, and
 * what one of its requests costs as the server counts it. Guarded by the partition's monitor.
 *
 * <p>The cost is learned one way from two sources: the server says it (the draft proposal's
 * {@code c} on a {@code RateLimit} item), or its remaining count shows it: a count that only
 * ever moves in multiples of {@code k > 1}, from one response of a policy to the next of this
 * route, up (a refill, a new window) as well as down (their greatest common divisor {@code k}),
 * and drops by exactly {@code k} on an admitted request at least {@link #STEPS_TO_TRUST} times,
 * means each request takes {@code k} units (with many callers, a drop often spans two requests:
 * {@code 2k}). Another client spending one unit at a time from the same count makes it move by
 * odd amounts sooner or later (when its units come back, if not when they are spent). A drop by an amount that is not a multiple (a drop by one) brings the gcd down for good,
 * so a server that charges one unit is never charged more for long; random counts rarely repeat
 * one step. A cost the server says wins over one the count suggests.
 */
final class Route {
  /** How many drops of the remaining count by the same step make that step a cost. */
  static final int STEPS_TO_TRUST = 6;
  /** The most a learned cost may be, whatever a server says. */
  static final long MAX_COST = 1_000_000;

  final long hash;
  final String key;
  /** The server policies this route's responses named (copy-on-write; identity matters). */
  PolicyState[] governs = Partition.NO_POLICIES;
  final InFlight inFlight = new InFlight();
  long lastUsedNanos;
  /** The cost the server said ({@code c}); 0 if it never did. */
  private long saidCost;
  /** The greatest common divisor of the moves of the remaining count seen; 0 before any. */
  private long dropStep;
  /** How many admitted drops were exactly {@link #dropStep}, since it last changed. */
  private int exactDrops;

  /**
   * Returns what one request of this route costs, as the server counts it: the cost it said,
   * else the step its count drops by, once enough drops agree, else 0 (not known: the
   * configured cost applies).
   */
  long learnedCost() {
    if (saidCost > 0) {
      return saidCost;
    }
    return dropStep > 1 && exactDrops >= STEPS_TO_TRUST ? dropStep : 0;
  }

  /** The server said a request of this route cost {@code units} ({@code c}). */
  void costSaid(long units) {
    saidCost = Math.max(1, Math.min(units, MAX_COST));
  }

  /**
   * The remaining count of a policy governing this route moved by {@code units} (more than
   * zero, either way) from the previous response to this one; {@code admittedDrop} if it
   * dropped and the server admitted this request.
   */
  void countMoved(long units, boolean admittedDrop) {
    long moved = Math.min(units, MAX_COST);
    long step = dropStep == 0 ? moved : gcd(dropStep, moved);
    if (step != dropStep) {
      dropStep = step;
      exactDrops = 0;
    }
    if (admittedDrop && moved == step && exactDrops < Integer.MAX_VALUE) {
      exactDrops++;
    }
  }

  private static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

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
