package dev.headway.internal.pacer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Owns what the pacer does with an exception it must not let through (a listener, a user
 * strategy, a parser that failed): it is logged through {@link System.Logger} (logger
 * {@code dev.headway}), at {@code WARNING} with its stack trace the first time a kind of failure
 * (where, and the exception's class) happens, and at {@code DEBUG} after that. Never silently
 * dropped, never a flood. Thread-safe.
 */
final class Swallowed {
  /** The logger every swallowed exception goes to. */
  static final String LOGGER = "dev.headway";
  private static final int MAX_KINDS = 256;
  private final System.Logger log = System.getLogger(LOGGER);
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /** Logs {@code e}, thrown by {@code where} and swallowed. Never throws. */
  void report(String where, Throwable e) {
    try {
      String kind = where + ": " + e.getClass().getName();
      boolean first = reported.size() < MAX_KINDS && reported.add(kind);
      if (first) {
        log.log(System.Logger.Level.WARNING, "Headway ignored an exception thrown by " + where
            + " (logged once at WARNING for each kind, then at DEBUG): " + e, e);
      } else if (log.isLoggable(System.Logger.Level.DEBUG)) {
        log.log(System.Logger.Level.DEBUG, "Headway ignored an exception thrown by " + where, e);
      }
    } catch (RuntimeException | LinkageError ignored) {
      // A broken logging backend must not break a request either.
    }
  }
}
