package dev.headway.examples;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the examples in virtual time: a {@link VirtualClock} near the real wall clock (so that
 * epoch-second resets the fakes compute stay plausible), sleeps that advance it, and scheduled
 * waits advanced by {@link #call}.
 */
final class VirtualTime implements AutoCloseable {
  final VirtualClock clock = VirtualClock
      .startingAt(Instant.now().truncatedTo(ChronoUnit.SECONDS))
      .autoAdvance(true);
  private final ExecutorService caller = Executors.newSingleThreadExecutor();

  /** Returns a pacer builder on this clock, without jitter so that waits are exact. */
  Pacer.Builder pacerBuilder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none());
  }

  /**
   * Runs {@code call} on another thread; whenever it waits on a scheduled task, moves the clock
   * to that task's deadline. Returns the call's result or rethrows its exception.
   */
  <T> T call(Callable<T> call) throws Exception {
    Future<T> future = caller.submit(call);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        return future.get(10, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof Exception cause) {
          throw cause;
        }
        throw e;
      } catch (TimeoutException e) {
        if (System.nanoTime() > deadline) {
          future.cancel(true);
          throw new AssertionError("the call did not finish in 20 s of real time", e);
        }
        List<Duration> delays = clock.pendingDelays();
        if (!delays.isEmpty()) {
          clock.advance(delays.stream().min(Duration::compareTo).orElseThrow());
        }
      }
    }
  }

  @Override
  public void close() {
    caller.shutdownNow();
  }
}
