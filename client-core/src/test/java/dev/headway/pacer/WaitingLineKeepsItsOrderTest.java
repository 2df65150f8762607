package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A new user's trial: one pacer, 8 threads against a fixed window of 5 per 3 s with the IETF
 * fields, {@code maxWait} 5 s (docs/pacer.md, "Waiting in line: refused at once when it cannot
 * be your turn"). A caller let into the line gets its turn; one that cannot is refused when it
 * calls, not after most of its {@code maxWait} while callers that joined the line later take the
 * units. Virtual time: the clock moves only when every live caller sleeps on it; each way of a
 * round trip takes 5 ms; a refused caller does something else for 50 ms and calls again (120
 * calls in all); the server's windows start at a phase that differs per seed (the trial reset
 * its server, then started a JVM). The trial saw, and this test reproduces, "waited 3.06 s of
 * its 5 s budget for policy default, and would have to wait 2.96 s more" and "waited 4.97 s of
 * its 5 s budget for answers to the requests probing a quota not known now (probes), and would
 * have to wait 0.05 s more".
 */
@Timeout(60)
class WaitingLineKeepsItsOrderTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/limited"));
  static final long WINDOW_NANOS = Duration.ofSeconds(3).toNanos();
  static final Duration ONE_WAY = Duration.ofMillis(5);
  static final Duration MAX_WAIT = Duration.ofSeconds(5);
  static final Duration PAUSE = Duration.ofMillis(50);
  /** Longer than any wait for the first answer: a refusal after this is one after waiting. */
  static final long WAITED_NANOS = Duration.ofSeconds(1).toNanos();

  /** 5 per 3 s; windows start at the server's start; reset rounded up to whole seconds. */
  static final class Window {
    private final VirtualClock clock;
    private final long phase;
    private long window = -1;
    private long used;
    int throttled;

    Window(VirtualClock clock, long phase) {
      this.clock = clock;
      this.phase = phase;
    }

    synchronized RateLimitSignal handle() {
      long now = clock.read() + phase;
      long w = now / WINDOW_NANOS;
      if (w != window) {
        window = w;
        used = 0;
      }
      long reset = ((w + 1) * WINDOW_NANOS - now + 999_999_999L) / 1_000_000_000L;
      if (used >= 5) {
        throttled++;
        return Signals.limit(429, 5, 3, 0, reset);
      }
      used++;
      return Signals.limit(200, 5, 3, 5 - used, reset);
    }
  }

  record Call(int caller, long askedAt, long endedAt, boolean refused, String why) {
    double waited() {
      return (endedAt - askedAt) / 1e9;
    }
  }

  @ParameterizedTest(name = "jitter seed {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void aCallerLetIntoTheLineIsNeverRefusedAfterWaitingWhileLaterOnesGo(int seed)
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    // The server's window started before the first call (the trial reset it, then started a JVM).
    Window server = new Window(clock, Duration.ofMillis(370L * seed % 3000).toNanos());
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitterSeed(seed).maxWait(MAX_WAIT).build();
    int threads = 8;
    AtomicInteger next = new AtomicInteger();
    AtomicInteger alive = new AtomicInteger(threads);
    List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int caller = t;
      futures.add(pool.submit(() -> {
        try {
          while (next.getAndIncrement() < 120) {
            long asked = clock.read();
            Permit permit;
            try {
              permit = pacer.acquire(GET);
            } catch (RateLimitedException e) {
              calls.add(new Call(caller, asked, clock.read(), true, e.getMessage()));
              clock.sleep(PAUSE); // a refused caller does something else, then calls again
              continue;
            }
            calls.add(new Call(caller, asked, clock.read(), false, ""));
            clock.sleep(ONE_WAY);
            RateLimitSignal answer = server.handle();
            clock.sleep(ONE_WAY);
            permit.complete(answer);
          }
        } finally {
          alive.decrementAndGet();
        }
        return null;
      }));
    }
    long realDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    while (alive.get() > 0 && System.nanoTime() < realDeadline) {
      if (clock.sleepers() >= alive.get() && alive.get() > 0) {
        clock.advanceToNextEvent();
      } else {
        Thread.onSpinWait();
      }
    }
    for (Future<?> f : futures) {
      f.get(1, TimeUnit.SECONDS);
    }
    pool.shutdownNow();
    pacer.close();

    List<Call> refusedAfterWaiting = calls.stream()
        .filter(c -> c.refused() && c.endedAt() - c.askedAt() > WAITED_NANOS).toList();
    StringBuilder story = new StringBuilder();
    for (Call c : calls) {
      story.append(String.format("%n  caller %d asked at %.3f s, %s after %.3f s %s", c.caller(),
          c.askedAt() / 1e9, c.refused() ? "REFUSED" : "went", c.waited(), c.why()));
    }
    assertThat(server.throttled).as("429s" + story).isZero();
    assertThat(refusedAfterWaiting)
        .as("callers refused after waiting (a caller let into the line gets its turn)" + story)
        .isEmpty();
  }
}
