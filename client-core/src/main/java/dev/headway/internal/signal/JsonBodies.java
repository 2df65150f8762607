package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.dialect.DialectContext;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Chooses, once per process, how response bodies are read: with {@link BodyReader} when
 * jackson-databind can be loaded and read by this module, otherwise not at all. Jackson is an
 * optional dependency: without it every other signal is read as usual, and the first body skipped
 * logs one INFO line per process (logger {@code dev.headway.signal}) saying what is lost and how
 * to get it back. Not a WARNING: leaving out an optional dependency is a choice, not a fault, and
 * what it costs is small (a hint that only a body gives). Thread-safe.
 */
final class JsonBodies {
  /** The class whose presence decides; loaded without being initialised. */
  static final String JACKSON_CLASS = "com.fasterxml.jackson.databind.ObjectMapper";
  private static final BodyHints READER = available(JACKSON_CLASS)
      ? (status, body, headers, context, sink) ->
          BodyReader.INSTANCE.read(status, body, headers, context, sink)
      : new Skipped();

  private JsonBodies() {}

  /** Returns the body reader of this process. */
  static BodyHints reader() {
    return READER;
  }

  /**
   * Returns whether {@code className} can be loaded by this module's class loader and, on the
   * module path, belongs to a module this one reads ({@code requires static} reads Jackson only
   * when something else brought it into the module graph).
   */
  static boolean available(String className) {
    try {
      Class<?> type = Class.forName(className, false, JsonBodies.class.getClassLoader());
      return JsonBodies.class.getModule().canRead(type.getModule());
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Reads no body; says once (per instance: the process has one) that bodies are skipped. */
  static final class Skipped implements BodyHints {
    static final String WARNING = "jackson-databind is not available (it is optional), so the"
        + " JSON bodies of throttled responses (retry_after, RFC 9457 problem details, GraphQL"
        + " cost) are not read for rate-limit hints: a 429 that says when to retry only in its body"
        + " is retried on Headway's own backoff. Every header is still read. Add"
        + " com.fasterxml.jackson.core:jackson-databind 2.12 or later to read them.";
    private final AtomicBoolean warned = new AtomicBoolean();

    @Override
    public Result read(int status, byte[] body, HttpFields headers, DialectContext context,
        SignalCollector sink) {
      if (!warned.get() && warned.compareAndSet(false, true)) {
        System.getLogger(SignalReader.LOGGER).log(Level.INFO, WARNING);
      }
      return Result.NONE;
    }
  }
}
