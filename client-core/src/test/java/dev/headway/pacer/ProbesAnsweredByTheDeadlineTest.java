package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A caller that waits for the answers of the requests probing a new window is refused only if
 * they have not come by its deadline, not a recheck interval before it: express-rate-limit
 * (`draft-8`, with and without a partition key `pk`), 20 per 10 s, 8 blocking callers with a
 * 10 s {@code maxWait} (the server's window), answers in 4 ms. Callers that came early in a
 * window wait for the next one and reach its reset with 40-50 ms of budget left; the reset's
 * probes answer in 4 ms. Before, they were told to look again in 50 ms, past their deadline,
 * and refused after waiting 9.95 s of their 10 s (6 callers in a 35 s run); now they look again
 * at their deadline, find the answers in and go. Callers refused at once (a window that cannot
 * fit them within 10 s) are not affected. Virtual time.
 */
@Timeout(40)
class ProbesAnsweredByTheDeadlineTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("http://127.0.0.1:8081/api"));
  static final long WINDOW = Duration.ofSeconds(10).toNanos();

  static final class Express {
    final VirtualClock clock;
    final boolean pk;
    long resetAt = Long.MIN_VALUE;
    long hits;
    int throttled;

    Express(VirtualClock clock, boolean pk) {
      this.clock = clock;
      this.pk = pk;
    }

    synchronized RateLimitSignal handle() {
      long now = clock.read();
      if (resetAt == Long.MIN_VALUE || now >= resetAt) {
        resetAt = now + WINDOW;
        hits = 0;
      }
      hits++;
      long t = (resetAt - now + 999_999_999L) / 1_000_000_000L;
      long r = Math.max(0, 20 - hits);
      int status = hits > 20 ? 429 : 200;
      if (status == 429) {
        throttled++;
      }
      Optional<String> key = pk ? Optional.of("NWVm") : Optional.empty();
      return new RateLimitSignal(status,
          List.of(new QuotaPolicy("20-in-10sec", 20, QuotaUnit.REQUESTS,
              Optional.of(Duration.ofSeconds(10)), key, "ietf")),
          List.of(new QuotaLimit("20-in-10sec", r, Optional.of(Duration.ofSeconds(t)),
              Optional.empty(), "ietf")),
          status == 429 ? Optional.of(Duration.ofSeconds(t)) : Optional.empty(),
          Optional.empty(), Optional.empty(), List.of(), List.of("ietf"), List.of(),
          status == 429);
    }
  }

  record Call(long askedAt, long endedAt, boolean refused, String why) {}

  @ParameterizedTest(name = "seed {0} pk {1} firstMs {2}")
  @CsvSource({"1,true,5", "3,true,300", "4,false,5", "5,false,300"})
  void run(int seed, boolean pk, long firstMs) throws Exception {
    VirtualClock clock = VirtualClock.create();
    Express server = new Express(clock, pk);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitterSeed(seed).maxWait(Duration.ofSeconds(10)).build();
    int threads = 8;
    AtomicInteger alive = new AtomicInteger(threads);
    AtomicInteger served = new AtomicInteger();
    List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        try {
          while (clock.read() < Duration.ofSeconds(35).toNanos()) {
            long asked = clock.read();
            Permit permit;
            try {
              permit = pacer.acquire(GET);
            } catch (RateLimitedException e) {
              calls.add(new Call(asked, clock.read(), true, e.getMessage()));
              clock.sleep(Duration.ofMillis(1));
              continue;
            }
            calls.add(new Call(asked, clock.read(), false, ""));
            boolean slow = served.getAndIncrement() < 2;
            clock.sleep(Duration.ofMillis(slow ? firstMs : 2));
            RateLimitSignal answer = server.handle();
            clock.sleep(Duration.ofMillis(2));
            permit.complete(answer);
          }
        } finally {
          alive.decrementAndGet();
        }
        return null;
      }));
    }
    long realDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
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
    List<Call> refused = calls.stream().filter(Call::refused).toList();
    StringBuilder story = new StringBuilder();
    for (Call c : refused) {
      story.append(String.format("%n  asked at %.3f s, refused after %.3f s: %s",
          c.askedAt() / 1e9, (c.endedAt() - c.askedAt()) / 1e9, c.why()));
    }
    long ok = calls.stream().filter(c -> !c.refused()).count();
    assertThat(refused).as("refused after waiting: %s", story)
        .allMatch(c -> c.endedAt() - c.askedAt() <= Duration.ofMillis(500).toNanos());
    assertThat(server.throttled).isZero();
    // 35 s from the first answer: four windows' 20 (the fourth begun), less the first's probes
    assertThat(ok).isGreaterThanOrEqualTo(78);
  }
}
