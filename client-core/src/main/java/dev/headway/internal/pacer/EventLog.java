package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.SignalWarning;
import dev.headway.Ticker;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes the pacer's events to the {@code System.Logger} named {@value #NAME}: a hold after a
 * throttled response, and a value the signal parser capped, dropped or could not parse, at
 * {@code WARNING}, and so is a permit reclaimed because it was never completed nor released,
 * at most one line per partition and reason per {@link #QUIET_NANOS minute} of
 * the pacer's ticker (the next line says how many were left out); every decision (a wait and its
 * end, a refusal, a retry advised) at {@code DEBUG}. Lines name the partition as {@link
 * PartitionNames#shown} does (a plain origin, else its origin and a short hash), never a request's
 * URL. Owns its rate-limit state. Thread-safe.
 */
final class EventLog {
  /** The logger's name. */
  static final String NAME = "dev.headway.pacer";
  /** How long a warning of a partition and reason keeps its repeats quiet: one minute. */
  static final long QUIET_NANOS = 60_000_000_000L;
  /** Past this many partition-and-reason keys the rate-limit state starts over. */
  private static final int MAX_KEYS = 4096;

  private final Logger logger;
  private final Ticker ticker;
  private final ConcurrentHashMap<String, Quiet> quiet = new ConcurrentHashMap<>();

  EventLog(Logger logger, Ticker ticker) {
    this.logger = logger;
    this.ticker = ticker;
  }

  /** Returns the log of the pacer's logger, on {@code ticker}'s time. */
  static EventLog of(Ticker ticker) {
    return new EventLog(System.getLogger(NAME), ticker);
  }

  /**
   * Returns a sink that logs every event, then hands it to {@code listeners}. It reports
   * {@link EventSink#enabled()} when either wants events, and {@link EventSink#wantsQuota()}
   * only for the listeners (the log has no use for quota snapshots).
   */
  EventSink around(EventSink listeners) {
    return new EventSink() {
      @Override
      public boolean enabled() {
        return listeners.enabled() || logger.isLoggable(Level.WARNING)
            || logger.isLoggable(Level.DEBUG);
      }

      @Override
      public boolean wantsQuota() {
        return listeners.wantsQuota();
      }

      @Override
      public void emit(PacerEvent event) {
        try {
          log(event);
        } catch (RuntimeException e) {
          // A broken logging backend can never break a request.
        }
        if (listeners.enabled()) {
          listeners.emit(event);
        }
      }
    };
  }

  /** Logs one event, if its level is enabled. */
  void log(PacerEvent event) {
    if (event instanceof PacerEvent.Throttled throttled) {
      warn(throttled.partition(), "throttled", "Headway: "
          + PartitionNames.shown(throttled.partition()) + " throttled by the server ("
          + throttled.status() + "): " + (throttled.holdFor().isZero()
              ? "it said to retry at once, so nothing is held"
              : "holding every request for " + DurationText.of(throttled.holdFor())));
    } else if (event instanceof PacerEvent.SignalWarned warned) {
      SignalWarning w = warned.warning();
      String line = "Headway: " + PartitionNames.shown(warned.partition()) + ": rate-limit field "
          + w.field() + " " + w.kind().name().toLowerCase(java.util.Locale.ROOT) + ": "
          + w.message();
      switch (w.kind()) {
        case CAPPED, DROPPED, MALFORMED ->
            warn(warned.partition(), w.kind() + " " + w.field(), line);
        default -> debug(line);
      }
    } else if (event instanceof PacerEvent.PermitExpired expired) {
      warn(expired.partition(), "expired", "Headway: " + PartitionNames.shown(expired.partition())
          + ": reclaimed a permit that was neither completed nor released within "
          + DurationText.of(expired.heldFor()) + " (a response body not closed, or a permit"
          + " not released on some path of the code that holds it)");
    } else if (event instanceof PacerEvent.QuotaUpdated) {
      return; // the log says what the pacer does, not every quota it learns
    } else if (logger.isLoggable(Level.DEBUG)) {
      debug("Headway: " + event); // every event's text starts with the partition as shown
    }
  }

  private void debug(String line) {
    if (logger.isLoggable(Level.DEBUG)) {
      logger.log(Level.DEBUG, line);
    }
  }

  private void warn(String partition, String reason, String line) {
    if (!logger.isLoggable(Level.WARNING)) {
      return;
    }
    long now = ticker.read();
    if (quiet.size() > MAX_KEYS) {
      quiet.clear();
    }
    // A server sub-partition is quieted with its base: a server that rotates its partition key
    // on every response still logs one line a minute per reason.
    int pk = partition.indexOf("|pk=");
    String base = pk < 0 ? partition : partition.substring(0, pk);
    Quiet q = quiet.computeIfAbsent(base + '\u0000' + reason, k -> new Quiet());
    long left;
    synchronized (q) {
      if (q.logged && now - q.sinceNanos < QUIET_NANOS) {
        q.suppressed++;
        if (logger.isLoggable(Level.DEBUG)) {
          logger.log(Level.DEBUG, line);
        }
        return;
      }
      left = q.suppressed;
      q.logged = true;
      q.sinceNanos = now;
      q.suppressed = 0;
    }
    logger.log(Level.WARNING, left == 0 ? line
        : line + " (" + left + " more like it in the last minute not logged)");
  }

  /** When a partition and reason last logged, and how many lines it left out since. */
  private static final class Quiet {
    boolean logged;
    long sinceNanos;
    long suppressed;
  }
}
