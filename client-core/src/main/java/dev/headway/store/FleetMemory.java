package dev.headway.store;

import dev.headway.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The state every instance of one {@link InMemoryQuotaStore} fleet shares: its settings, and one
 * {@link KeyState} per key (least recently used keys dropped past {@code maxKeys}). Guarded by
 * its own monitor.
 */
final class FleetMemory {
  private static final Duration MAX_HOLD = Duration.ofDays(1);
  /** A count claiming to be from further in the future than this is taken as observed now. */
  private static final Duration MAX_SKEW = Duration.ofMinutes(1);
  /** Resets and instants this close belong to one window (resets come in whole seconds). */
  private static final Duration SAME_WINDOW = Duration.ofSeconds(1);

  final InstantSource clock;
  final Duration roundTrip;
  final Scheduler scheduler;
  final long maxLeaseUnits;
  final Duration maxLeaseDuration;
  final Duration heartbeat;
  final int maxKeys;
  final AtomicLong leaseSequence = new AtomicLong();
  private final LinkedHashMap<QuotaKey, KeyState> keys;

  FleetMemory(InstantSource clock, Duration roundTrip, Scheduler scheduler, long maxLeaseUnits,
      Duration maxLeaseDuration, Duration heartbeat, int maxKeys) {
    this.clock = clock;
    this.roundTrip = roundTrip;
    this.scheduler = scheduler;
    this.maxLeaseUnits = maxLeaseUnits;
    this.maxLeaseDuration = maxLeaseDuration;
    this.heartbeat = heartbeat;
    this.maxKeys = maxKeys;
    keys = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<QuotaKey, KeyState> eldest) {
        return size() > maxKeys;
      }
    };
  }

  synchronized SharedQuota observe(QuotaKey key, ServerCount count, Lease lease, long units,
      Instant sentAt, String instance, Instant now) {
    KeyState s = state(key, instance, now);
    ServerCount c = count;
    if (c.observedAt().isAfter(now.plus(MAX_SKEW))) {
      c = new ServerCount(c.remaining(), now, c.resetAt(), c.quota(), c.window());
    }
    boolean ofAssumed = s.count != null && s.assumed && ofAssumedWindow(s.count, c);
    if (s.count == null || ofAssumed
        || (!s.count.observedAt().isAfter(c.observedAt()) && !earlierInSameWindow(s.count, c))) {
      if (ofAssumed && s.rate == null && probed(s, lease, units)) {
        s.rate = Refill.shownBy(s.count, c, now);
        s.whole |= s.rate == null && Refill.shownWhole(s.count, c);
      }
      s.count = c;
      s.assumed = false;
      s.normalize(now, this);
    } else if (!s.assumed && s.rate == null && laterInSameWindow(s.count, c)) {
      // Counted by the server after the stored count, though its instant is older: it holds
      // everything the stored one holds, and more.
      c = new ServerCount(c.remaining(), s.count.observedAt(), c.resetAt(), c.quota(), c.window());
      s.count = c;
      s.normalize(now, this);
    }
    KeyState.LeaseUnits held = lease == null ? null : s.leases.get(lease.id());
    if (held != null && units > 0 && !lease.id().startsWith("e:")) {
      // Units of the request that carried the count: in it, so taken no more if it is the
      // count in force, nor if the count in force was counted after it (a key that gives its
      // quota back whole at its reset); else like any units sent then.
      long sent = Math.min(units, held.units());
      if (sent == held.units()) {
        s.leases.remove(lease.id());
      } else {
        s.leases.put(lease.id(), new KeyState.LeaseUnits(held.units() - sent, held.validUntil()));
      }
      if (s.count != c && !(s.whole && s.rate == null && !s.assumed && countedBefore(s.count, c))) {
        s.addSent(sent, sentAt);
        s.mergeEnded(now);
      }
    }
    return s.snapshot(key);
  }

  /**
   * Whether the request of {@code units} that carried a count was lent from the key's leases in
   * force (the probes of a window the store assumed). A count carried by a request sent outside
   * them (an instance pacing alone while the store was down, or since it came back) counts units
   * the store never lent: it says nothing of how the server gives units back, and a refill read
   * from it would lend units a fixed window does not have.
   */
  private static boolean probed(KeyState s, Lease lease, long units) {
    return lease != null && units > 0 && !lease.id().startsWith("e:")
        && s.leases.containsKey(lease.id());
  }

  /**
   * Whether {@code next}, observed within a second after {@code stored}, has more units left
   * with a reset no later than a second after the stored one's (the same window, or a server
   * that refills: the more units left, the sooner all are back): then the server counted its
   * request before the stored one's (requests overtake each other between a pacer's decision and
   * the server), and it is not newer news. A new window's count resets a window later.
   */
  static boolean earlierInSameWindow(ServerCount stored, ServerCount next) {
    return next.remaining() > stored.remaining()
        && stored.resetAt().isPresent() && next.resetAt().isPresent()
        && !next.resetAt().get().isAfter(stored.resetAt().get().plus(SAME_WINDOW))
        && Duration.between(stored.observedAt(), next.observedAt()).compareTo(SAME_WINDOW) < 0;
  }

  /**
   * Whether {@code next}, observed within a second before {@code stored}, has fewer units left
   * with a reset within a second of the stored one's (the same window of a server that does not
   * refill): then the server counted its request after the stored one's (it reached the server
   * later, though sent earlier), and it is newer news.
   */
  static boolean laterInSameWindow(ServerCount stored, ServerCount next) {
    return next.remaining() < stored.remaining()
        && stored.resetAt().isPresent() && next.resetAt().isPresent()
        && !next.resetAt().get().isAfter(stored.resetAt().get().plus(SAME_WINDOW))
        && !next.resetAt().get().isBefore(stored.resetAt().get().minus(SAME_WINDOW))
        && Duration.between(next.observedAt(), stored.observedAt()).compareTo(SAME_WINDOW) < 0;
  }

  /**
   * Whether the server counted the request that carried {@code next} before the one that carried
   * {@code stored}, so that {@code stored} holds its units: of the same window (resets within a
   * second of each other), observed within a second of it, with more units left. Asked only of
   * a key that showed it gives its quota back whole at its reset ({@link KeyState#whole}) and
   * has no rate: a fixed window, whose count never rises within a window. Elsewhere a count with
   * more left may be of units given back since, its request counted after the stored one.
   * Without it, the last requests of a window, answered in another order than the server
   * counted them, stayed taken until a later count, which a fleet that believes itself spent
   * never sends for: the window's last units were left unused.
   */
  static boolean countedBefore(ServerCount stored, ServerCount next) {
    return next.remaining() > stored.remaining()
        && stored.resetAt().isPresent() && next.resetAt().isPresent()
        && !next.resetAt().get().isAfter(stored.resetAt().get().plus(SAME_WINDOW))
        && !next.resetAt().get().isBefore(stored.resetAt().get().minus(SAME_WINDOW))
        && Duration.between(stored.observedAt(), next.observedAt()).abs()
            .compareTo(SAME_WINDOW) < 0;
  }

  /**
   * Whether {@code next} replaces {@code assumed}, a count the store started itself: a count
   * the server reported is better news unless it holds for more than a second before that
   * window started, or it resets more than half a window after the window started (a count of
   * it). Requests overtake each other on the way, and a count of the window before whose reset
   * passed is rolled over again.
   */
  static boolean ofAssumedWindow(ServerCount assumed, ServerCount next) {
    Duration half = assumed.window().orElse(Duration.ZERO).dividedBy(2);
    return !next.observedAt().isBefore(assumed.observedAt().minus(SAME_WINDOW))
        || (next.resetAt().isPresent()
            && next.resetAt().get().isAfter(assumed.observedAt().plus(half)));
  }

  synchronized Lease lease(QuotaKey key, String id, long minUnits, long maxUnits,
      String instance, Instant now) {
    KeyState s = state(key, instance, now);
    long upper = Math.max(minUnits, Math.min(maxUnits, maxLeaseUnits));
    Instant validUntil = now.plus(maxLeaseDuration);
    Instant probeEnds = null;
    long granted;
    if (s.holdUntil != null) {
      granted = 0;
    } else if (s.count == null) {
      // First contact: the fleet's first requests would all reach the server before any count
      // is in the store (50 instances of 4 callers against a burst of 10: 90 429s). While another
      // instance is seen, one probe goes (the request at hand), and the others wait for its
      // count, for its units to be reported without one (a server that gives no count), or at
      // most the probe's lease duration (a server that answers slowly). Alone, an instance goes
      // as it would without a store.
      if (s.probeEnds == null) {
        s.probeEnds = now.plus(maxLeaseDuration);
        s.keepProbe(s.probeEnds);
        granted = s.instances.size() > 1 ? minUnits : upper;
      } else if (s.instances.size() > 1 && now.isBefore(s.probeEnds)) {
        granted = 0;
        probeEnds = s.probeEnds;
      } else {
        granted = upper;
      }
    } else {
      if (!s.assumed && Refill.bucket(s.count, s.rate)
          && Refill.credit(s.count, s.rate, s.taken(), now) > Refill.bucketCap(s.count)) {
        // A bucket full past its quota with every unit lent taken: moved to now, full. The units
        // told sent before are in it. Those told as sent at a later instant (requests committed
        // to go later) are in it too if the rate gives them back before the first of them goes;
        // otherwise lending the whole quota now leaves the bucket short when they go, so they
        // stay taken. An open lease stays taken: its units may still go, or come back.
        ServerCount c = s.count;
        s.count = new ServerCount(Refill.bucketCap(c), now, c.resetAt(), c.quota(), c.window());
        long ahead = 0;
        Instant first = null;
        for (var e : s.leases.entrySet()) {
          Instant end = e.getValue().validUntil();
          if (e.getKey().startsWith("e:") && end.isAfter(now)) {
            ahead += e.getValue().units();
            first = first == null || end.isBefore(first) ? end : first;
          }
        }
        boolean paid = first == null || Refill.credit(
            ServerCount.of(0, now), s.rate, 0, first) >= ahead;
        s.leases.entrySet().removeIf(e -> e.getKey().startsWith("e:")
            && (paid || !e.getValue().validUntil().isAfter(now)));
        s.normalize(now, this);
      }
      long available = s.available(now, maxLeaseDuration);
      if (available < minUnits) {
        granted = 0;
      } else {
        long share = available / s.instances.size();
        granted = Math.min(available, Math.max(minUnits, Math.min(upper, share)));
      }
      if (s.rate == null && s.count.resetAt().isPresent()
          && s.count.resetAt().get().isBefore(validUntil)) {
        validUntil = s.count.resetAt().get();
      }
    }
    if (granted > 0 && !s.roomForLease()) {
      granted = 0;
    }
    if (granted > 0) {
      s.leases.put(id, new KeyState.LeaseUnits(granted, validUntil));
      if (s.probeEnds != null) {
        s.keepProbe(validUntil);
      }
    } else {
      // A refusal says when to ask again: the hold's end, the probe's, the reset of a spent
      // count of a window the server gives back whole, when the units come back (askAgainAt),
      // or now (the store cannot tell).
      Instant reset = s.holdUntil != null || probeEnds != null ? null
          : spentUntil(s, minUnits, now);
      Instant back = s.holdUntil != null || probeEnds != null || reset != null ? null
          : askAgainAt(s, minUnits, now);
      validUntil = s.holdUntil != null ? s.holdUntil : probeEnds != null ? probeEnds
          : reset != null ? reset : back != null ? back : now;
      if (reset != null) {
        // The instance waits for that reset without a call: it is still in the fleet, and
        // comes back then.
        Instant until = reset.plus(heartbeat);
        Instant cap = now.plus(MAX_HOLD);
        s.instances.merge(instance, until.isAfter(cap) ? cap : until,
            (a, b) -> a.isAfter(b) ? a : b);
      }
    }
    return new Lease(key, id, granted, validUntil, s.snapshot(key));
  }

  synchronized SharedQuota release(Lease lease, long unused, String instance, Instant now) {
    KeyState s = state(lease.key(), instance, now);
    probeAnswered(s, now);
    KeyState.LeaseUnits units = s.leases.get(lease.id());
    if (units != null) {
      long left = units.units() - Math.min(unused, units.units());
      if (left == 0) {
        s.leases.remove(lease.id());
      } else {
        s.leases.put(lease.id(), new KeyState.LeaseUnits(left, units.validUntil()));
      }
    }
    return s.snapshot(lease.key());
  }

  synchronized SharedQuota spent(Lease lease, long units, Instant lastSentAt, String instance,
      Instant now) {
    KeyState s = state(lease.key(), instance, now);
    probeAnswered(s, now);
    KeyState.LeaseUnits held = s.leases.get(lease.id());
    if (held != null && !lease.id().startsWith("e:")) {
      long sent = Math.min(units, held.units());
      if (sent == held.units()) {
        s.leases.remove(lease.id());
      } else {
        s.leases.put(lease.id(), new KeyState.LeaseUnits(held.units() - sent, held.validUntil()));
      }
      s.addSent(sent, lastSentAt);
      s.mergeEnded(now);
    }
    return s.snapshot(lease.key());
  }

  /**
   * Units of a key without a count were reported sent (their answer carried no count) or given
   * back: the probe is over, and leases are lent in full from now on (nothing to wait for).
   */
  private void probeAnswered(KeyState s, Instant now) {
    if (s.count == null && s.probeEnds != null && s.probeEnds.isAfter(now)) {
      s.probeEnds = now;
      s.keepProbe(now);
    }
  }

  synchronized SharedQuota hold(QuotaKey key, Instant until, String instance, Instant now) {
    KeyState s = state(key, instance, now);
    Instant capped = until.isAfter(now.plus(MAX_HOLD)) ? now.plus(MAX_HOLD) : until;
    if (capped.isAfter(now) && (s.holdUntil == null || capped.isAfter(s.holdUntil))) {
      s.holdUntil = capped;
    }
    return s.snapshot(key);
  }

  synchronized SharedQuota lift(QuotaKey key, Instant until, String instance, Instant now) {
    KeyState s = state(key, instance, now);
    if (s.holdUntil != null && Duration.between(s.holdUntil, until).abs().compareTo(
        Duration.ofSeconds(1)) <= 0) {
      s.holdUntil = null;
    }
    return s.snapshot(key);
  }

  synchronized SharedQuota learnRate(QuotaKey key, RefillRate rate, String instance,
      Instant now) {
    KeyState s = state(key, instance, now);
    if (s.rate == null || !s.rate.learnedAt().isAfter(rate.learnedAt())) {
      s.rate = rate;
      s.normalize(now, this);
    }
    return s.snapshot(key);
  }

  synchronized SharedQuota read(QuotaKey key, String instance, Instant now) {
    return state(key, instance, now).snapshot(key);
  }

  /**
   * The reset of the key's count when that count is spent for a request of {@code units} and
   * nothing but the reset gives units back: the server's own count of a window, no refill rate,
   * and the key showed it gives its whole quota back at its reset ({@link KeyState#whole}: a
   * sliding window's counter gives units back before it). Else null.
   */
  private static Instant spentUntil(KeyState s, long units, Instant now) {
    ServerCount c = s.count;
    if (c == null || s.assumed || s.rate != null || !s.whole || c.remaining() >= units
        || c.window().isEmpty() || c.resetAt().isEmpty() || !c.resetAt().get().isAfter(now)) {
      return null;
    }
    return c.resetAt().get();
  }

  /**
   * When an instance refused {@code units} now asks again, where the store can tell: the units
   * come back at a time it knows, and it tells each refused instance its own turn. Else null
   * (the instance looks again by its own rule).
   *
   * <ul>
   *   <li>A window the store started itself, whose probes go only as a server giving the quota
   *       back evenly over its window would have them back (the key has not shown it gives its
   *       quota back whole): when the quota per window has given back the probes' units taken and
   *       these, at most a lease's longest duration after the window started. Probes already
   *       out: null (their count comes within a round trip to the server).
   *   <li>A count with a refill rate: when the rate has given the units back ({@link
   *       Refill#backAt}), and after the turns already told, one refill of the units per
   *       refused instance ({@link KeyState#nextTurn}): the instances refused together ask one
   *       after the other as units come back, not all at once for each (50 instances asked 50
   *       times for each unit of a fleet's own budget). A turn is never further off than one
   *       refill per instance the store counts.
   * </ul>
   */
  private Instant askAgainAt(KeyState s, long units, Instant now) {
    ServerCount c = s.count;
    if (c == null) {
      return null;
    }
    if (s.assumed) {
      if (s.whole || s.rate != null || c.quota().isEmpty() || c.window().isEmpty()) {
        return null;
      }
      long needed = s.taken() + units;
      Instant start = c.observedAt();
      Instant latest = start.plus(maxLeaseDuration);
      if (needed > KeyState.ASSUMED_UNITS || !now.isBefore(latest)) {
        return null;
      }
      double nanos = Math.ceil((double) needed * c.window().get().toNanos()
          / c.quota().getAsLong());
      Instant at = start.plusNanos((long) Math.min(nanos, Duration.ofDays(1).toNanos()));
      at = at.isAfter(latest) ? latest : at;
      return at.isAfter(now) ? at : null;
    }
    RefillRate rate = s.rate;
    if (rate == null) {
      return null;
    }
    Instant back = Refill.backAt(c, s.taken(), units, rate);
    if (back == null || !back.isAfter(now)) {
      return null;
    }
    double perUnit = (double) rate.period().toNanos() / rate.units();
    long refill = (long) Math.min(Duration.ofDays(1).toNanos(), Math.ceil(perUnit * units));
    Instant at = s.nextTurn != null && s.nextTurn.isAfter(back) ? s.nextTurn : back;
    Instant last = now.plusNanos((long) Math.min(Duration.ofDays(1).toNanos(),
        (double) refill * Math.max(1, s.instances.size())));
    if (at.isAfter(last)) {
      at = back.isAfter(last) ? back : last;
    }
    s.nextTurn = at.plusNanos(refill);
    return at;
  }

  private KeyState state(QuotaKey key, String instance, Instant now) {
    KeyState s = keys.computeIfAbsent(key, k -> new KeyState());
    s.instances.merge(instance, now.plus(heartbeat), (a, b) -> a.isAfter(b) ? a : b);
    s.normalize(now, this);
    return s;
  }
}
