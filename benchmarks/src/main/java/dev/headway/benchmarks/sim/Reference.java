package dev.headway.benchmarks.sim;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * What the perfect client ({@link PerfectClient}) achieves in a scenario: the yardstick of
 * goodput (overall and per quota) and of late calls. Computed once per scenario; immutable.
 */
public final class Reference {
  private final Scenario scenario;
  private final long oracleAllowed;
  private final long[] admissions;
  private final long[][] quotaTimes;
  private final long[][] quotaUnits;
  private final long maxDelayNanos;

  private Reference(Scenario scenario, long oracleAllowed, long[] admissions,
      long[][] quotaTimes, long[][] quotaUnits, long maxDelayNanos) {
    this.scenario = scenario;
    this.oracleAllowed = oracleAllowed;
    this.admissions = admissions;
    this.quotaTimes = quotaTimes;
    this.quotaUnits = quotaUnits;
    this.maxDelayNanos = maxDelayNanos;
  }

  /** Runs the perfect client in {@code scenario} and returns its figures. */
  public static Reference of(Scenario scenario) {
    LongList all = new LongList();
    int quotas = scenario.scoped() == null ? 0 : scenario.scoped().create(0).meters.size();
    LongList[] times = new LongList[quotas];
    LongList[] units = new LongList[quotas];
    for (int i = 0; i < quotas; i++) {
      times[i] = new LongList();
      units[i] = new LongList();
    }
    Simulation sim = Simulation.simulate(scenario, new PerfectClient(), null,
        (server, request, now) -> {
          all.add(now);
          if (server instanceof ScopedServer scoped) {
            List<Meter> meters = scoped.meters;
            for (int i = 0; i < meters.size(); i++) {
              Meter m = meters.get(i);
              if (m.governs(request)) {
                times[i].add(now);
                units[i].add(units[i].last() + m.cost(request));
              }
            }
          }
        });
    long[] delays = sim.delays();
    long max = 0;
    for (long d : delays) {
      max = Math.max(max, d);
    }
    long[][] t = new long[quotas][];
    long[][] u = new long[quotas][];
    for (int i = 0; i < quotas; i++) {
      t[i] = times[i].toArray();
      u[i] = units[i].toArray();
    }
    long oracle = scenario.scoped() == null ? Simulation.allowed(scenario) : Long.MAX_VALUE;
    return new Reference(scenario, oracle, all.toArray(), t, u, max);
  }

  /**
   * Returns what a client could have had admitted in the first {@code endNanos} of the run: the
   * perfect client's count, and for a one-quota server never more than the quota allows when
   * each request arrives the first instant it is admitted (the count the simulator always used;
   * the perfect client's is lower only when too few callers or too long a round trip keep it
   * from using the quota).
   */
  public long allowedBefore(long endNanos) {
    long perfect = countBefore(admissions, endNanos);
    if (scenario.scoped() != null) {
      return perfect;
    }
    long oracle = endNanos >= scenario.duration().toNanos() ? oracleAllowed
        : Simulation.allowed(scenario.withDuration(Duration.ofNanos(endNanos)));
    return Math.min(oracle, perfect);
  }

  /** Returns the units the perfect client spent on quota {@code index} before {@code endNanos}. */
  long quotaUnitsBefore(int index, long endNanos) {
    int n = countBefore(quotaTimes[index], endNanos);
    return n == 0 ? 0 : quotaUnits[index][n - 1];
  }

  /** Returns the longest a perfect client made a call wait before its request left. */
  public long maxDelayNanos() {
    return maxDelayNanos;
  }

  /**
   * Returns the wait after which a call counts as late: twice the longest wait of the perfect
   * client, plus one round trip.
   */
  public long lateAfterNanos() {
    return 2 * maxDelayNanos + scenario.rtt().toNanos();
  }

  private static int countBefore(long[] sortedTimes, long endNanos) {
    int i = Arrays.binarySearch(sortedTimes, endNanos);
    if (i < 0) {
      return -i - 1;
    }
    while (i > 0 && sortedTimes[i - 1] == endNanos) {
      i--;
    }
    return i;
  }

  /** A growable array of longs. */
  private static final class LongList {
    private long[] values = new long[64];
    private int size;

    void add(long v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    long last() {
      return size == 0 ? 0 : values[size - 1];
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
