package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The times given to asynchronous waiters follow a refilling count's answers ({@code Retiming}):
 * {@code AsyncAcquire.sooner} cancels a waiter's wake-up and asks the scheduler for an earlier
 * one. A scheduler that refuses that task (a user's, shut down or bounded) must fail the waiter,
 * as a refusal anywhere else does; it must not leave it with no wake-up at all, waiting past its
 * {@code maxWait} for ever.
 */
@Timeout(60)
class RetimingSchedulerFailureTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private int refused;

  @Test
  void aWaiterWhoseEarlierWakeUpTheSchedulerRefusesStillEnds() {
    Scheduler scheduler = new Scheduler() {
      @Override
      public void sleep(Duration delay) throws InterruptedException {
        clock.sleep(delay);
      }

      @Override
      public Future<?> schedule(Runnable task, Duration delay) {
        for (StackTraceElement e : new Throwable().getStackTrace()) {
          if (e.getMethodName().equals("sooner") && e.getClassName().endsWith("AsyncAcquire")) {
            refused++;
            throw new RejectedExecutionException("scheduler shut down");
          }
        }
        return clock.schedule(task, delay);
      }
    };
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(scheduler)
        .jitterSeed(7).maxWait(Duration.ofSeconds(10)).build();
    List<CompletableFuture<Permit>> all = new ArrayList<>();
    double[] tokens = {89};
    long[] last = {0};
    Runnable[] call = new Runnable[1];
    long end = 5 * SECOND;
    call[0] = () -> {
      if (clock.read() >= end) {
        return;
      }
      CompletableFuture<Permit> f = pacer.acquireAsync(GET);
      all.add(f);
      f.whenComplete((permit, error) -> {
        if (error != null) {
          clock.schedule(call[0], Duration.ofMillis(100));
          return;
        }
        clock.schedule(() -> {
          long now = clock.read();
          tokens[0] = Math.min(89, tokens[0] + (now - last[0]) * 89.0 / SECOND);
          last[0] = now;
          boolean ok = tokens[0] >= 1;
          if (ok) {
            tokens[0] -= 1;
          }
          long resetNanos = (long) Math.ceil((89 - tokens[0]) * SECOND / 89.0);
          Instant wall = clock.instant();
          long resetEpoch = Math.floorDiv(wall.getEpochSecond() * SECOND + wall.getNano()
              + resetNanos + SECOND - 1, SECOND);
          HttpFields.Builder fields = HttpFields.builder()
              .add("Date", DateTimeFormatter.RFC_1123_DATE_TIME.format(
                  Instant.ofEpochSecond(wall.getEpochSecond()).atOffset(ZoneOffset.UTC)))
              .add("X-RateLimit-Limit", "89")
              .add("X-RateLimit-Remaining", Long.toString((long) Math.floor(tokens[0])))
              .add("X-RateLimit-Reset", Long.toString(resetEpoch));
          if (!ok) {
            fields.add("Retry-After", "1");
          }
          clock.schedule(() -> {
            permit.complete(ok ? 200 : 429, fields.build(), null);
            call[0].run();
          }, Duration.ofMillis(1));
        }, Duration.ofMillis(1));
      });
    };
    for (int i = 0; i < 26; i++) {
      call[0].run();
    }
    clock.advance(Duration.ofSeconds(60)); // far past every maxWait

    assertThat(refused).as("earlier wake-ups the scheduler refused").isPositive();
    assertThat(all.stream().filter(f -> !f.isDone()).count())
        .as("acquires still waiting 60 s on, with maxWait 10 s").isZero();
  }
}
