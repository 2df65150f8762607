package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.RateLimitedException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One cell of the suite: a fresh limiter, a fresh {@link Pacer} and one adapter's client, hammered
 * by {@link #WORKERS} threads for {@link #WINDOWS} windows, then the server's log read.
 *
 * <p>Settings (system properties, set by the module's pom): {@code interop.limit} requests per
 * {@code interop.window} (an ISO-8601 duration), over {@code interop.windows} windows.
 */
final class InteropRun {
  /** Threads calling as fast as the client lets them, sharing one client and one pacer. */
  static final int WORKERS = 8;
  static final int LIMIT = Integer.parseInt(property("interop.limit"));
  static final Duration WINDOW = Duration.parse(property("interop.window"));
  static final int WINDOWS = Integer.parseInt(property("interop.windows"));
  static final Duration DURATION = WINDOW.multipliedBy(WINDOWS);
  private static final Duration OVERRUN = Duration.ofMillis(500);

  private InteropRun() {}

  static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("system property " + name + " is not set: run the suite"
          + " through Maven (mvn -B verify -pl interop-tests -am), whose pom sets it");
    }
    return value;
  }

  /** Runs {@code adapter} against a fresh {@code limiter} and returns what the server counted. */
  static Cell run(Limiter limiter, Adapter adapter) throws Exception {
    String name = limiter.id + "-" + adapter.name();
    WarmUp.run(adapter);
    try (LimiterServer server = LimiterServer.start(limiter, LIMIT, WINDOW.toMillis(), name);
        Pacer pacer = pacer(name);
        Adapter.Caller caller = adapter.open(pacer)) {
      server.reset();
      Tally tally = hammer(caller, server.workUri());
      if (Boolean.getBoolean("interop.trace")) {
        java.nio.file.Files.write(Runtimes.WORK.resolve("logs").resolve(name + "-hits.txt"),
            server.log().stream().map(Object::toString).toList());
      }
      return Cell.of(limiter, adapter.name(), server.version(), server.log(), tally);
    }
  }

  /**
   * A fresh pacer with its defaults. With {@code -Dinterop.trace=true}, every event it emits
   * (each answer's quota as the pacer then sees it, each wait, each 429) is written, with the
   * milliseconds since the cell began, to {@code target/interop/logs/<cell>-trace.txt}, and the
   * server's own log (arrival time in its clock's milliseconds, status) to
   * {@code <cell>-hits.txt}: to trace a cell's misses, not for CI.
   */
  private static Pacer pacer(String name) throws java.io.IOException {
    if (!Boolean.getBoolean("interop.trace")) {
      return Pacer.create();
    }
    java.nio.file.Path file = java.nio.file.Files.createDirectories(Runtimes.WORK.resolve("logs"))
        .resolve(name + "-trace.txt");
    java.io.PrintWriter out = new java.io.PrintWriter(java.nio.file.Files.newBufferedWriter(file),
        true);
    long start = System.nanoTime();
    return Pacer.builder().listener(event -> {
      synchronized (out) {
        out.println((System.nanoTime() - start) / 1_000_000 + " " + event);
      }
    }).build();
  }

  /** What the callers saw (the server's log is what counts; this explains it). */
  record Tally(int calls, int saw429, int failedFast, int errors, String firstError) {}

  private static Tally hammer(Adapter.Caller caller, URI uri) throws InterruptedException {
    // A little past the run: what is counted is DURATION from the first request the server saw.
    long deadline = System.nanoTime() + DURATION.plus(OVERRUN).toNanos();
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger saw429 = new AtomicInteger();
    AtomicInteger failedFast = new AtomicInteger();
    AtomicInteger errors = new AtomicInteger();
    AtomicReference<String> firstError = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      Thread worker = new Thread(() -> {
        while (System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
          try {
            calls.incrementAndGet();
            if (caller.get(uri) == 429) {
              saw429.incrementAndGet();
            }
          } catch (Exception e) {
            if (System.nanoTime() >= deadline || interrupted(e)) {
              return; // stopped at the end of the run
            } else if (rateLimited(e) != null) {
              failedFast.incrementAndGet();
              // As a caller would: come back when the exception says, not at once.
              long waitNanos = Math.min(rateLimited(e).requiredWait().toNanos(),
                  deadline - System.nanoTime());
              if (waitNanos > 0) {
                try {
                  TimeUnit.NANOSECONDS.sleep(waitNanos);
                } catch (InterruptedException stopped) {
                  return;
                }
              }
            } else {
              errors.incrementAndGet();
              firstError.compareAndSet(null, e.toString());
            }
          }
        }
      }, "interop-worker-" + i);
      worker.setDaemon(true);
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
    }
    for (Thread worker : workers) {
      worker.interrupt(); // ends a wait for a permit that would outlast the run
    }
    for (Thread worker : workers) {
      worker.join(10_000);
    }
    return new Tally(calls.get(), saw429.get(), failedFast.get(), errors.get(), firstError.get());
  }

  private static RateLimitedException rateLimited(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RateLimitedException limited) {
        return limited;
      }
    }
    return null;
  }

  private static boolean interrupted(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException || t instanceof InterruptedIOException
          && !(t instanceof java.net.SocketTimeoutException)) {
        return true;
      }
    }
    return false;
  }
}
