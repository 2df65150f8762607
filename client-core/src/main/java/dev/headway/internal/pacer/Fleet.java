package dev.headway.internal.pacer;

import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import java.lang.System.Logger.Level;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Owns the link to a {@link QuotaStore} for the whole engine: whether the store answers, the
 * backoff after it did not (the pacer then paces locally, as without a store), logging an
 * outage once (at most one {@code WARNING} a minute), and turning the engine's monotonic times
 * into the store's instants. Creates the {@link SharedBudget} of a partition. Thread-safe.
 */
final class Fleet {
  /** The policy name of the one key a partition shares (its tightest request count). */
  static final String POLICY = "requests";
  private static final System.Logger LOG = System.getLogger("dev.headway.store");
  /** After a failure the store is asked again (in the background) after this. */
  static final long RETRY_NANOS = 500_000_000L;
  /** A store call not answered after this counts as failed (stores time out well before). */
  static final long STUCK_NANOS = 2_000_000_000L;

  /** The user's store; a call that throws is a failed call ({@link GuardedStore}). */
  final QuotaStore store;
  final Settings settings;
  /**
   * Whether the store answered the last call; false: an outage is under way (its first failure
   * seen, no answer since), pace locally and ask in the background. Written under this (with the
   * outage's log state), read without.
   */
  private volatile boolean healthy = true;
  private volatile long retryAtNanos = Long.MIN_VALUE;
  /** When the store answered again after an outage (engine time); Long.MIN_VALUE before any. */
  private volatile long backAtNanos = Long.MIN_VALUE;
  /** When the last outage began (the first failed call after an answer). Under this. */
  private long downSinceNanos = Long.MIN_VALUE;
  /** How long after {@link #backAtNanos} the instances still keep to their shares. */
  private volatile long rejoinNanos;
  /**
   * After an outage, instances still keep to their share of the server's counts ({@link
   * FleetShare}) for as long as the outage lasted, at least this and at most {@link
   * #MAX_REJOIN_NANOS}: the others learn that the store is back only with their next call to it,
   * which a store backing off (doubling its wait, as the Redis store does up to 10 s) may make as
   * late as the outage was long, and what they send until then is in no lease.
   */
  static final long MIN_REJOIN_NANOS = 2 * RETRY_NANOS;
  /**
   * An answer showing fewer instances than one showed less than this before means the store
   * forgot the fleet (see {@link #forgot}): the store counts an instance for a heartbeat (10 s)
   * after its last call, and the instances that are gone were there a moment ago.
   */
  static final long FORGOTTEN_NANOS = 10_000_000_000L;
  static final long MAX_REJOIN_NANOS = 10_000_000_000L;
  /**
   * At most one outage a minute is logged at {@code WARNING} (and its end at {@code INFO}): a
   * store that flaps logs its later outages within the minute at {@code DEBUG} (unless one lasts
   * {@link #WARN_LONG_NANOS}), and the next {@code WARNING} says how many there were.
   */
  static final long WARN_EVERY_NANOS = 60_000_000_000L;
  /**
   * An outage still under way this long after it began is warned even within the minute after a
   * {@code WARNING}: by then the store's other instances count this one gone (a heartbeat), and a
   * store that flaps fails for far less. Otherwise a blip (a cold start past the store's timeout)
   * hid a real outage that followed it within the minute.
   */
  static final long WARN_LONG_NANOS = 10_000_000_000L;
  /** Whether the outage under way was logged at WARNING (its end is then logged at INFO). */
  private boolean warned;
  /** When the last WARNING was logged; Long.MIN_VALUE before any. Under this. */
  private long warnedAtNanos = Long.MIN_VALUE;
  /** Outages logged at DEBUG only since the last WARNING. Under this. */
  private int unwarned;

  Fleet(QuotaStore store, Settings settings) {
    this.store = new GuardedStore(store);
    this.settings = settings;
  }

  /** Returns the shared budget of a base partition, or null when its key cannot be shared. */
  SharedBudget budgetFor(Partition partition) {
    QuotaKey key;
    try {
      key = new QuotaKey(storeName(partition.key), POLICY);
    } catch (IllegalArgumentException e) {
      return SharedBudget.NONE;
    }
    return new SharedBudget(this, partition, key);
  }

  /**
   * Returns the name a partition has in the store: its key, or for a key longer than {@link
   * QuotaKey#MAX_LENGTH} the key's first {@code MAX_LENGTH - 34} characters, {@code #h} and the
   * first 32 hex digits of the SHA-256 of the whole key (UTF-8), so that long keys with a common
   * prefix stay apart ({@code "-"} for an empty key).
   */
  static String storeName(String partitionKey) {
    if (partitionKey.isEmpty()) {
      return "-";
    }
    if (partitionKey.length() <= QuotaKey.MAX_LENGTH) {
      return partitionKey;
    }
    int cut = QuotaKey.MAX_LENGTH - 34;
    if (Character.isHighSurrogate(partitionKey.charAt(cut - 1))) {
      cut--; // never half a character
    }
    return partitionKey.substring(0, cut) + "#h" + Sha256.hex(partitionKey, 32);
  }

  /** Returns the shared budget of {@code base}, created if new; under its monitor. */
  SharedBudget budget(Partition base) {
    SharedBudget shared = base.shared;
    if (shared == null) {
      shared = budgetFor(base);
      base.shared = shared;
    }
    return shared;
  }

  /**
   * Gives the fleet units of a permit that was never sent back to the lease they came from.
   * Under the base's monitor.
   */
  static void refund(Partition base, PermitImpl permit, boolean refund, long now) {
    SharedBudget shared = base.shared;
    if (shared != null && permit.lease != null) {
      shared.unanswered(permit.lease, permit.sendAtNanos, now);
    }
    if (refund && shared != null && permit.lease != null) {
      shared.refund(permit.lease, permit.costRequests, now);
    }
    permit.lease = null;
  }

  /** Tells the store that {@code units} of {@code lease} were sent, the last at {@code at}. */
  void spent(Lease lease, long units, Instant at, long now) {
    try {
      store.spent(lease, units, at).whenComplete((s, e) -> failedIf(e));
    } catch (RuntimeException e) {
      failed(e, now);
    }
  }

  /** Gives back {@code units} of {@code lease} not spent. */
  void release(Lease lease, long units, long now) {
    try {
      store.release(lease, units).whenComplete((s, e) -> failedIf(e));
    } catch (RuntimeException e) {
      failed(e, now);
    }
  }

  private void failedIf(@Nullable Throwable error) {
    if (error != null) {
      failed(error, settings.ticker.read());
    }
  }

  /** Whether admission waits for the store's answers (it answered last time). */
  boolean healthy() {
    return healthy;
  }

  /**
   * Whether the fleet coordinates through the store at {@code now}: it answered the last call,
   * and the outage before (if any) ended long enough ago for the others to be back (see {@link
   * #MIN_REJOIN_NANOS}).
   */
  boolean coordinating(long now) {
    long back = backAtNanos;
    return healthy && (back == Long.MIN_VALUE || Time.sub(now, back) >= rejoinNanos);
  }

  /** Whether a store that failed may be asked again at {@code now}. */
  boolean mayRetry(long now) {
    return now >= retryAtNanos;
  }

  /**
   * Records a failed call: local pacing from now on. An outage is logged at {@code WARNING} with
   * its cause at its first failure, unless a {@code WARNING} was logged less than {@link
   * #WARN_EVERY_NANOS} before: then at {@code DEBUG}, and at {@code WARNING} by its first failure
   * once that time has passed or once it has lasted {@link #WARN_LONG_NANOS}, if it still lasts
   * (a long outage is never only at {@code DEBUG}).
   * Its other failures are logged at {@code DEBUG}.
   */
  void failed(Throwable error, long now) {
    retryAtNanos = Time.add(now, RETRY_NANOS);
    boolean first;
    boolean warn;
    int earlier = 0;
    long since;
    synchronized (this) {
      first = healthy;
      if (first) {
        downSinceNanos = now;
        healthy = false;
      }
      since = downSinceNanos;
      warn = !warned && (warnedAtNanos == Long.MIN_VALUE
          || Time.sub(now, warnedAtNanos) >= WARN_EVERY_NANOS
          || (!first && Time.sub(now, since) >= WARN_LONG_NANOS));
      if (warn) {
        // The outages logged at DEBUG before this one (this one counted there if it began so).
        earlier = first ? unwarned : unwarned - 1;
        warned = true;
        warnedAtNanos = now;
        unwarned = 0;
      } else if (first) {
        unwarned++;
      }
    }
    if (warn) {
      long downSeconds = since == Long.MIN_VALUE ? 0 : Time.sub(now, since) / 1_000_000_000L;
      LOG.log(Level.WARNING, (first ? "Quota store did not answer ({0})"
          : "Quota store has not answered for {2} s ({0})") + "; pacing locally until it does"
          + (earlier == 0 ? "" : " ({1} outages since the last WARNING logged at DEBUG)"),
          describe(error), earlier, downSeconds);
    } else if (first) {
      LOG.log(Level.DEBUG, "Quota store did not answer again ({0}); pacing locally until it"
          + " does (at most one WARNING a minute)", describe(error));
    } else {
      LOG.log(Level.DEBUG, "Quota store still unavailable ({0})", describe(error));
    }
  }

  /**
   * Records an answer: sharing resumes, logged at {@code INFO} if the outage was logged at
   * {@code WARNING}, else at {@code DEBUG}.
   */
  void answered() {
    if (healthy) {
      return;
    }
    long now = settings.ticker.read();
    boolean info;
    synchronized (this) {
      if (healthy) {
        return; // another call's answer ended the outage meanwhile
      }
      long lasted = downSinceNanos == Long.MIN_VALUE ? 0 : Time.sub(now, downSinceNanos);
      rejoinNanos = Math.max(MIN_REJOIN_NANOS, Math.min(MAX_REJOIN_NANOS, lasted));
      backAtNanos = now;
      healthy = true;
      info = warned;
      warned = false;
    }
    LOG.log(info ? Level.INFO : Level.DEBUG, "Quota store answers again; sharing resumes");
  }

  /**
   * A store answer showed that the store forgot what the fleet wrote (it came back empty, or
   * without the instances it showed {@code sinceNanos} ago): a failover to a replica that lagged,
   * a restart. This instance may have made no call while it was down (it was waiting out a
   * window); the others that did keep to their shares of the server's counts after it. So this
   * one does too, as after an outage of {@code sinceNanos}, from {@code now}.
   */
  void forgot(long sinceNanos, long now) {
    long rejoin = Math.max(MIN_REJOIN_NANOS, Math.min(MAX_REJOIN_NANOS, sinceNanos));
    if (coordinating(now)) {
      rejoinNanos = rejoin;
      backAtNanos = now;
      LOG.log(Level.DEBUG, "Quota store forgot the fleet (a failover?); sharing by counts");
    }
  }

  private static String describe(Throwable error) {
    Throwable e = error;
    while (e.getCause() != null && (e instanceof java.util.concurrent.CompletionException
        || e instanceof java.util.concurrent.ExecutionException)) {
      e = e.getCause();
    }
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  /**
   * Returns the latest engine time a value read from the store may hold this instance back to:
   * {@code now} plus the {@code Retry-After} cap ({@link dev.headway.SanityCaps#maxRetryAfter()}),
   * the bound a server's own hold gets.
   */
  long capped(long now) {
    return Time.add(now, Time.nanos(settings.caps.maxRetryAfter()));
  }

  /**
   * Whether an instant read from the store is plausible as the time a rate was learned: at most
   * a minute ahead of this instance's clock (skew between instances) and less than a day old (a
   * store forgets a rate after a day).
   */
  boolean plausibleLearnedAt(Instant learnedAt) {
    Instant wall = settings.wallClock.instant();
    return !learnedAt.isAfter(wall.plusSeconds(60))
        && learnedAt.isAfter(wall.minus(java.time.Duration.ofDays(1)));
  }

  /** Returns the instant of the engine time {@code nanos}, read against {@code now}. */
  Instant instant(long nanos, long now) {
    return settings.wallClock.instant().plusNanos(Time.sub(nanos, now));
  }

  /** Returns the engine time of {@code instant}, read against {@code now} (saturating). */
  long nanos(Instant instant, long now) {
    Instant wall = settings.wallClock.instant();
    long delta;
    try {
      delta = java.time.Duration.between(wall, instant).toNanos();
    } catch (ArithmeticException e) {
      delta = instant.isAfter(wall) ? Long.MAX_VALUE / 4 : Long.MIN_VALUE / 4;
    }
    return Time.add(now, delta);
  }
}
