package dev.headway.testing;

import java.lang.System.Logger.Level;
import java.text.MessageFormat;
import java.util.List;
import java.util.Objects;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link System.LoggerFinder} for tests, registered through
 * {@code META-INF/services/java.lang.System$LoggerFinder}: every {@code System.Logger} line of
 * the test JVM is kept here (all levels enabled), for tests to assert on (the last 20,000).
 * {@link #lines(String)} reads a logger's lines; {@link #clear()} forgets them.
 *
 * <p>Under the build's tests (system property {@code headway.testing.logs=captured}, set for
 * every module's Surefire run by the parent pom) lines are only kept. Anywhere else this jar is
 * on the class path (the examples and demos take it for their local Redis), lines are also
 * handed to {@code java.util.logging}, as the JDK's own finder would: a demo's warnings, and its
 * user's, still print.
 */
public final class CapturedLogs extends System.LoggerFinder {
  /** The most lines kept: past it the oldest go (suites that log a line per request). */
  private static final int MAX_LINES = 20_000;
  private static final ConcurrentLinkedQueue<Line> LINES = new ConcurrentLinkedQueue<>();
  private static final AtomicInteger SIZE = new AtomicInteger();
  private static final java.util.Map<String, RuntimeException> FAILING =
      new java.util.concurrent.ConcurrentHashMap<>();
  private static final boolean ONLY_CAPTURED =
      "captured".equals(System.getProperty("headway.testing.logs"));

  /** One logged line. */
  public record Line(String logger, Level level, String message, @Nullable Throwable thrown) {
    @Override
    public String toString() {
      return level + " " + logger + ": " + message + (thrown == null ? "" : " (" + thrown + ")");
    }
  }

  /** Called by the service loader. */
  public CapturedLogs() {}

  /**
   * Returns the lines of the logger {@code name} (or of every logger whose name starts with
   * {@code name + "."}) logged so far, oldest first; fails if this finder is not the JVM's.
   */
  public static List<Line> lines(String name) {
    if (!(System.LoggerFinder.getLoggerFinder() instanceof CapturedLogs)) {
      throw new AssertionError("CapturedLogs is not the JVM's LoggerFinder: the test resources'"
          + " META-INF/services/java.lang.System$LoggerFinder must be on the class path");
    }
    return LINES.stream().filter(l -> l.logger.equals(name) || l.logger.startsWith(name + "."))
        .toList();
  }

  /**
   * Makes every line logged to {@code name} (or a logger under it) throw {@code failure} after
   * it is kept, as a broken logging backend would, until the returned handle is closed.
   */
  public static AutoCloseable failing(String name, RuntimeException failure) {
    FAILING.put(name, failure);
    return () -> FAILING.remove(name);
  }

  /** Forgets every line logged so far. */
  public static void clear() {
    LINES.clear();
    SIZE.set(0);
  }

  private static void add(Line line) {
    if (!ONLY_CAPTURED) {
      print(line);
    }
    LINES.add(line);
    if (SIZE.incrementAndGet() > MAX_LINES && LINES.poll() != null) {
      SIZE.decrementAndGet();
    }
    for (java.util.Map.Entry<String, RuntimeException> f : FAILING.entrySet()) {
      if (line.logger.equals(f.getKey()) || line.logger.startsWith(f.getKey() + ".")) {
        throw f.getValue();
      }
    }
  }

  /** What the JDK's default finder does when {@code java.logging} is present. */
  private static void print(Line line) {
    java.util.logging.Logger logger = java.util.logging.Logger.getLogger(line.logger());
    java.util.logging.Level level = switch (line.level()) {
      case ALL, TRACE -> java.util.logging.Level.FINER;
      case DEBUG -> java.util.logging.Level.FINE;
      case INFO -> java.util.logging.Level.INFO;
      case WARNING -> java.util.logging.Level.WARNING;
      case ERROR -> java.util.logging.Level.SEVERE;
      case OFF -> java.util.logging.Level.OFF;
    };
    if (logger.isLoggable(level)) {
      logger.log(level, line.message(), line.thrown());
    }
  }

  @Override
  public System.Logger getLogger(String name, Module module) {
    Objects.requireNonNull(name, "name");
    return new System.Logger() {
      @Override
      public String getName() {
        return name;
      }

      @Override
      public boolean isLoggable(Level level) {
        return level != Level.OFF;
      }

      @Override
      public void log(Level level, @Nullable ResourceBundle bundle, String msg,
          @Nullable Throwable thrown) {
        add(new Line(name, level, msg, thrown));
      }

      @Override
      public void log(Level level, @Nullable ResourceBundle bundle, String format,
          @Nullable Object... params) {
        String msg = params == null || params.length == 0 ? format
            : MessageFormat.format(format, params);
        add(new Line(name, level, msg, null));
      }

      @Override
      public void log(Level level, Supplier<String> supplier) {
        add(new Line(name, level, supplier.get(), null));
      }
    };
  }
}
