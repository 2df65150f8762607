package dev.headway.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** One key's state in an {@link InMemoryQuotaStore}; guarded by {@link FleetMemory}'s monitor. */
final class KeyState {
  private static final Duration RATE_TTL = Duration.ofDays(1);
  /** A count without reset nor window is believed this long. */
  private static final Duration COUNT_TTL = Duration.ofDays(1);
  /** Ended leases are merged into buckets this wide. */
  private static final long BUCKET_MILLIS = 100;
  /** Beyond this many buckets, they are merged into one. */
  private static final int MAX_BUCKETS = 32;
  /** Without a count, an ended lease is kept this long, for a count observed before it ended. */
  private static final Duration ENDED_LEASE_RETENTION = Duration.ofMinutes(1);

  /** Units of one lease, and when it ends. */
  record LeaseUnits(long units, Instant validUntil) {}

  ServerCount count;
  /**
   * The count is one the store started by itself at a reset (the next window, full), not one a
   * server reported: leases take at most {@link #ASSUMED_UNITS} units from it, the probes of
   * the new window, until a count of it arrives (a server need not give the whole quota back at
   * its reset, and one that refills continuously does not).
   */
  boolean assumed;
  /** The units leases may take from an assumed count. */
  static final long ASSUMED_UNITS = 2;
  /**
   * A count of a window the store assumed, carried by one of its probes, showed the server gave
   * at least half its quota back at the reset (it does not refill gradually): the probes of later
   * windows go at the reset. Until then they go only as a server that gives the quota back over
   * the window would have them back (a sliding window, whose previous window still weighs at the
   * reset, refuses a probe sent at it). Forgotten with the count.
   */
  boolean whole;
  final LinkedHashMap<String, LeaseUnits> leases = new LinkedHashMap<>();
  Instant holdUntil;
  /**
   * When the fleet's probe of a key without a count (first contact) ends, or null: until then,
   * unless a count arrives or the probe's units are reported, no more units are lent while
   * another instance is seen (see {@link FleetMemory#lease}). Kept while the key has no count,
   * until {@link #probeKeptUntil} (as the Redis store keeps it in the leases hash, which
   * expires a minute after the last lease or bucket written ends).
   */
  Instant probeEnds;
  /**
   * The most units a count of the key showed the server holds once all is back ({@link
   * Refill#full}), or -1: a count grows to no more. Forgotten with the count.
   */
  long full = -1;
  Instant probeKeptUntil;
  /** A probe is remembered this long after the last lease written ends. */
  private static final Duration PROBE_KEPT = Duration.ofMinutes(1);
  RefillRate rate;
  /**
   * The turn after the last one told to an instance refused while the rate gives units back, or
   * null: the next refused instance asks again no sooner (see {@link FleetMemory#lease}).
   * Forgotten with the count.
   */
  Instant nextTurn;
  final Map<String, Instant> instances = new LinkedHashMap<>();

  /** Expires what is due at {@code now}; starts the next window of a count whose reset passed. */
  void normalize(Instant now, FleetMemory shared) {
    if (rate != null && !rate.learnedAt().plus(RATE_TTL).isAfter(now)) {
      rate = null;
    }
    if (count != null) {
      ServerCount before = count;
      count = rate != null && now.isBefore(Refill.believedUntil(count, rate))
          ? count : current(count, now);
      assumed = count != null && (assumed || count != before);
    }
    if (count == null) {
      full = -1;
      whole = false;
      nextTurn = null;
    } else if (rate != null && !assumed) {
      full = Math.max(full, Refill.full(count, rate));
    }
    if (count != null || (probeKeptUntil != null && !probeKeptUntil.isAfter(now))) {
      probeEnds = null;
      probeKeptUntil = null;
    }
    if (count != null) {
      Instant observedAt = count.observedAt();
      leases.values().removeIf(l -> !l.validUntil().isAfter(observedAt));
    } else {
      Instant forgetBefore = now.minus(ENDED_LEASE_RETENTION);
      leases.values().removeIf(l -> l.validUntil().isBefore(forgetBefore));
    }
    mergeEnded(now);
    if (holdUntil != null && !holdUntil.isAfter(now)) {
      holdUntil = null;
    }
    instances.values().removeIf(until -> !until.isAfter(now));
  }

  /** Returns the count in force at {@code now}: this one, the next window's, or none. */
  private static ServerCount current(ServerCount c, Instant now) {
    if (c.resetAt().isEmpty()) {
      Duration ttl = c.window().orElse(COUNT_TTL);
      return c.observedAt().plus(ttl).isAfter(now) ? c : null;
    }
    Instant reset = c.resetAt().get();
    if (reset.isAfter(now)) {
      return c;
    }
    if (c.quota().isEmpty() || c.window().isEmpty()) {
      return null;
    }
    long windowNanos = c.window().get().toNanos();
    long behind = Duration.between(reset, now).toNanos();
    long windows = behind / windowNanos + 1;
    Instant next = reset.plusNanos(windowNanos * windows);
    return new ServerCount(c.quota().getAsLong(), next.minus(c.window().get()),
        Optional.of(next), c.quota(), c.window());
  }

  /**
   * The count's units at {@code now}: refilled at the rate, if the key has one; at most the
   * probes' units while the count is assumed, and, until the key showed it gives the whole quota
   * back ({@link #whole}), at most those the quota per window gives back since the window started,
   * for at most {@code probeWait} after it (a lease's longest duration: a long window with a small
   * quota would hold its probes back for minutes).
   */
  long level(Instant now, Duration probeWait) {
    long level = Refill.level(count, rate, full, now);
    if (!assumed) {
      return level;
    }
    long probes = whole || rate != null || !now.isBefore(count.observedAt().plus(probeWait))
        ? ASSUMED_UNITS : Math.min(ASSUMED_UNITS, Refill.backSinceStart(count, now));
    return Math.min(level, probes);
  }

  /**
   * The units leases may take at {@code now}: the level less the units taken; {@code probeWait}
   * as for {@link #level}.
   */
  long available(Instant now, Duration probeWait) {
    return assumed ? Math.max(0, level(now, probeWait) - taken())
        : Refill.available(count, rate, full, taken(), now);
  }

  long taken() {
    if (count == null) {
      return 0;
    }
    long sum = 0;
    for (LeaseUnits l : leases.values()) {
      sum = Math.min(ServerCount.MAX_UNITS, sum + l.units());
    }
    return sum;
  }

  /**
   * Merges ended leases into buckets of 100 ms by their end ({@code e:<end>}), and more than 32
   * buckets into coarser ones ({@link #coarsen}): their units stay taken (spent, or not returned)
   * until a count observed at or after the bucket's end, and the leases kept between two counts
   * stay few.
   */
  void mergeEnded(Instant now) {
    Map<String, LeaseUnits> merged = null;
    Iterator<Map.Entry<String, LeaseUnits>> it = leases.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, LeaseUnits> e = it.next();
      LeaseUnits l = e.getValue();
      if (e.getKey().startsWith("e:") || l.validUntil().isAfter(now)) {
        continue;
      }
      it.remove();
      long millis = l.validUntil().toEpochMilli();
      long end = Math.floorDiv(millis + BUCKET_MILLIS - 1, BUCKET_MILLIS) * BUCKET_MILLIS;
      String bucket = "e:" + end;
      if (merged == null) {
        merged = new LinkedHashMap<>();
      }
      LeaseUnits before = merged.get(bucket);
      merged.put(bucket, new LeaseUnits(
          Math.min(ServerCount.MAX_UNITS, l.units() + (before == null ? 0 : before.units())),
          Instant.ofEpochMilli(end)));
    }
    if (merged != null) {
      for (Map.Entry<String, LeaseUnits> e : merged.entrySet()) {
        LeaseUnits existing = leases.get(e.getKey());
        long units = e.getValue().units() + (existing == null ? 0 : existing.units);
        Instant until = existing != null && existing.validUntil().isAfter(e.getValue().validUntil())
            ? existing.validUntil() : e.getValue().validUntil();
        leases.put(e.getKey(), new LeaseUnits(Math.min(ServerCount.MAX_UNITS, units), until));
      }
    }
    // More than MAX_BUCKETS: coarsened, never merged across the whole span (see coarsen).
    coarsen();
  }

  /**
   * Keeps at most {@link #MAX_BUCKETS} buckets of units sent or ended: each bucket's end is
   * rounded up to a multiple of 2, 4, 8 ... ms (never past the latest end), the first that leaves
   * that many or fewer, and buckets with the same end merge. A bucket's units stay taken until a
   * count observed at or after its end, so its end may only move later; rounded this way, no
   * unit is kept past a count observed later than its own end by more than the buckets' span over
   * 16, nor past one observed at or after the latest end. Before, more
   * than 32 buckets became one with the latest end: a count observed a millisecond before the
   * last unit sent held none of the units sent before it, and a fleet's own budget (whose counts
   * come only with 429s) owed every unit sent since its last count at a rate just cut.
   */
  private void coarsen() {
    long buckets = 0;
    long latest = Long.MIN_VALUE;
    for (Map.Entry<String, LeaseUnits> e : leases.entrySet()) {
      if (e.getKey().startsWith("e:")) {
        buckets++;
        latest = Math.max(latest, endMillis(e.getValue().validUntil()));
      }
    }
    for (long grain = 2; buckets > MAX_BUCKETS; grain *= 2) {
      java.util.TreeMap<Long, Long> merged = new java.util.TreeMap<>();
      Iterator<Map.Entry<String, LeaseUnits>> all = leases.entrySet().iterator();
      while (all.hasNext()) {
        Map.Entry<String, LeaseUnits> e = all.next();
        if (e.getKey().startsWith("e:")) {
          long end = Math.min(latest,
              Math.floorDiv(endMillis(e.getValue().validUntil()) + grain - 1, grain) * grain);
          merged.merge(end, e.getValue().units(),
              (a, b) -> Math.min(ServerCount.MAX_UNITS, a + b));
          all.remove();
        }
      }
      for (Map.Entry<Long, Long> e : merged.entrySet()) {
        leases.put("e:" + e.getKey(),
            new LeaseUnits(e.getValue(), Instant.ofEpochMilli(e.getKey())));
      }
      buckets = merged.size();
    }
  }

  /** The first whole millisecond at or after {@code t}. */
  private static long endMillis(Instant t) {
    long ms = t.toEpochMilli();
    return t.getNano() % 1_000_000 == 0 ? ms : ms + 1;
  }

  /**
   * Records units sent, the last at {@code at}: dropped when the count in force was observed at
   * or after it (the server counted them), else kept in the bucket of their millisecond,
   * {@code e:<ms>}, until such a count.
   */
  void addSent(long units, Instant at) {
    if (units <= 0 || (count != null && !at.isAfter(count.observedAt()))) {
      return;
    }
    long millis = at.toEpochMilli();
    String bucket = "e:" + millis;
    LeaseUnits before = leases.get(bucket);
    Instant until = before == null || at.isAfter(before.validUntil()) ? at : before.validUntil();
    leases.put(bucket, new LeaseUnits(
        Math.min(ServerCount.MAX_UNITS, units + (before == null ? 0 : before.units())), until));
  }

  /** Keeps the probe until a minute after {@code until}, at least. */
  void keepProbe(Instant until) {
    Instant kept = until.plus(PROBE_KEPT);
    if (probeKeptUntil == null || kept.isAfter(probeKeptUntil)) {
      probeKeptUntil = kept;
    }
  }

  boolean roomForLease() {
    return leases.size() < InMemoryQuotaStore.MAX_LEASES_PER_KEY;
  }

  SharedQuota snapshot(QuotaKey key) {
    return new SharedQuota(key, Optional.ofNullable(count), taken(),
        Optional.ofNullable(holdUntil), Optional.ofNullable(rate), Math.max(1, instances.size()));
  }
}
