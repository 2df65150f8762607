package dev.headway.internal.adapter;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Logs an exception Headway caught and did not pass on (so that a failure of its own code, or
 * of user code it calls, never breaks a request): one line per exception swallowed, at
 * {@code WARNING} with its stack trace for the first of a logger, place and exception type in a
 * minute, at {@code DEBUG} for the repeats. The exception's message is cut before any
 * query, fragment or user info of a URL it quotes. Thread-safe; never throws.
 */
public final class Swallowed {
  /** How long repeats of a logger, place and exception type stay at DEBUG: one minute. */
  static final long QUIET_NANOS = 60_000_000_000L;
  private static final int MAX_KEYS = 1024;
  private static final Pattern URL_TAIL = Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*://)"
      + "(?:[^\\s/@?#]*@)?([^\\s?#]*)[?#]?\\S*");
  private static final ConcurrentHashMap<String, Long> LAST = new ConcurrentHashMap<>();

  private Swallowed() {}

  /**
   * Logs {@code e}, caught at {@code place} ("completing a permit", "a retry's delay") and
   * ignored, to the logger {@code loggerName}.
   */
  public static void log(String loggerName, String place, Throwable e) {
    try {
      Logger logger = System.getLogger(loggerName);
      String line = "Headway: " + place + " failed; ignored so that the call goes on as it"
          + " would without Headway: " + e.getClass().getName() + safeMessage(e.getMessage());
      String key = loggerName + '\u0000' + place + '\u0000' + e.getClass().getName();
      long now = System.nanoTime();
      if (LAST.size() > MAX_KEYS) {
        LAST.clear();
      }
      Long last = LAST.get(key);
      boolean warn = (last == null || now - last >= QUIET_NANOS)
          && (last == null ? LAST.putIfAbsent(key, now) == null : LAST.replace(key, last, now));
      if (warn) {
        if (logger.isLoggable(Level.WARNING)) {
          // The stack trace, under a copy of the exception whose message is cut like the line's.
          Throwable trace = new Throwable(e.getClass().getName() + safeMessage(e.getMessage()));
          trace.setStackTrace(e.getStackTrace());
          logger.log(Level.WARNING, line, trace);
        }
      } else if (logger.isLoggable(Level.DEBUG)) {
        logger.log(Level.DEBUG, line);
      }
    } catch (RuntimeException | LinkageError ignored) {
      // A broken logging backend can never break a request.
    }
  }

  /** Returns {@code ": " + message} with URLs cut to scheme, host and path; "" if none. */
  static String safeMessage(String message) {
    if (message == null || message.isEmpty()) {
      return "";
    }
    return ": " + URL_TAIL.matcher(message).replaceAll("$1$2");
  }
}
