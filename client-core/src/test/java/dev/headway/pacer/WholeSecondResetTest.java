package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reset in whole seconds ({@code t}) says when the window ends only to within a second: a
 * server rounds it, and the client does not know when in the round trip the server counted.
 * At a 1-second window that second is the whole window, so a count that went up before the
 * believed reset may come from the next window rather than from a server that gives units back
 * continuously. Regression: the pacer took it for a refill, paced the rest of the window at
 * quota / window per unit and drew 429s from a plain fixed window (QuotaServerLoadTest in
 * hostile-server-tests: 161 to 275 of 10,000 calls).
 */
@Timeout(60)
class WholeSecondResetTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long QUOTA = 10;

  private final VirtualClock clock = VirtualClock.create();
  private final FakeServer server = new FakeServer(clock, QUOTA, 1);
  private final List<Throwable> refused = new ArrayList<>();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3).build();
  }

  @Test
  void aHigherCountBeforeAWholeSecondResetIsTheNextWindowNotARefill() {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .strategy(PacingStrategy.useAllThenWait()).build();
    // The first answer comes 0.86 s into the server's window: "t=1", the believed reset is at
    // 1.86 s, although the window really ends at 1 s.
    clock.advance(Duration.ofMillis(860));
    pacer.tryAcquire(GET).orElseThrow().complete(server.handle());
    // 1.05 s: the next window gave the quota back and said so (r=9 again, t=1).
    clock.advance(Duration.ofMillis(190));
    pacer.tryAcquire(GET).orElseThrow().complete(server.handle());
    // The nine units left go now; nothing more comes back before the window ends at 2 s.
    List<Permit> burst = new ArrayList<>();
    for (int i = 0; i < QUOTA - 1; i++) {
      burst.add(pacer.tryAcquire(GET).orElseThrow());
    }
    for (Permit permit : burst) {
      permit.complete(server.handle());
    }
    int sentBefore = server.received();
    for (int step = 0; step < 90; step++) { // until 1.95 s, looking every 10 ms
      clock.advance(Duration.ofMillis(10));
      Optional<Permit> permit = pacer.tryAcquire(GET);
      permit.ifPresent(p -> p.complete(server.handle()));
    }
    assertThat(server.received() - sentBefore).as("sent after the window was spent, before 1.95 s")
        .isZero();
    assertThat(server.throttled()).as("429s").isZero();
  }

  @Test
  void aResetCarriedOverWindowsNobodySawIsReplacedByTheNextAnswer() {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .strategy(PacingStrategy.useAllThenWait()).build();
    // Believed reset 1.86 s (the window really ends at 1 s); nothing is sent until 2.1 s, when
    // the pacer carries its reset over one window, to 2.86 s. The server's window 2 ends at 3 s.
    clock.advance(Duration.ofMillis(860));
    pacer.tryAcquire(GET).orElseThrow().complete(server.handle());
    clock.advance(Duration.ofMillis(1_240));
    pacer.tryAcquire(GET).orElseThrow().complete(server.handle()); // r=9, t=1: until 3.1 s
    List<Permit> burst = new ArrayList<>();
    for (int i = 0; i < QUOTA - 1; i++) {
      burst.add(pacer.tryAcquire(GET).orElseThrow());
    }
    for (Permit permit : burst) {
      permit.complete(server.handle());
    }
    int sentBefore = server.received();
    for (int step = 0; step < 89; step++) { // until 2.99 s, looking every 10 ms
      clock.advance(Duration.ofMillis(10));
      pacer.tryAcquire(GET).ifPresent(p -> p.complete(server.handle()));
    }
    assertThat(server.received() - sentBefore).as("sent after the window was spent, before 3 s")
        .isZero();
    assertThat(server.throttled()).as("429s").isZero();
  }

  @Test
  void burstsAtEveryPhaseOfAOneSecondWindowNeverDrawA429() {
    // Light and heavy seconds alternate, starting at a different instant of the window each
    // time: a window the client did not spend is followed by one it does.
    Pacer pacer = pacer();
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    for (int second = 0; second < 40; second++) {
      long offsetMillis = (second * 130L) % 1000;
      int callers = second % 2 == 0 ? 3 : 12;
      clock.schedule(() -> {
        for (int i = 0; i < callers; i++) {
          calls.incrementAndGet();
          call(pacer, answered);
        }
      }, Duration.ofMillis(second * 1000L + offsetMillis));
    }
    for (int step = 0; step < 60_000; step++) {
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(refused).as("calls refused").isEmpty();
    assertThat(answered).as("answered calls").hasValue(calls.get());
    assertThat(server.throttled()).as("429s").isZero();
    for (long w = 0; w < 60; w++) {
      assertThat(server.sentInWindow(w)).as("received in window %d", w).isLessThanOrEqualTo(QUOTA);
    }
  }

  @Test
  void aTokenBucketAtAOneSecondWindowIsStillPacedAtItsRefillRate() {
    // 10 per second, one token back every 100 ms, "t" = until full in whole seconds (rounded
    // up: always 1). Its count goes up a token at a time and never back to the whole quota
    // while it is used: units given back, not a new window. One caller, back to back, 5 ms each
    // way, for 20 s: the bucket admits 10 + 200. Taken for a fixed window (waiting for "t" each
    // time the count reached 0) the caller got 200.
    Pacer pacer = pacer();
    double perToken = 100_000_000.0;
    double tokens = QUOTA;
    long last = 0;
    int admitted = 0;
    int throttled = 0;
    while (clock.read() < 20_000_000_000L) {
      Optional<Permit> permit = pacer.tryAcquire(GET);
      if (permit.isEmpty()) {
        clock.advance(Duration.ofMillis(5));
        continue;
      }
      clock.advance(Duration.ofMillis(5));
      long now = clock.read();
      tokens = Math.min(QUOTA, tokens + (now - last) / perToken);
      last = now;
      boolean ok = tokens >= 1;
      if (ok) {
        tokens -= 1;
        admitted++;
      } else {
        throttled++;
      }
      long untilFull = (long) Math.ceil((QUOTA - tokens) * perToken / 1e9);
      clock.advance(Duration.ofMillis(5));
      permit.get().complete(Signals.limit(ok ? 200 : 429, QUOTA, 1, (long) Math.floor(tokens),
          Math.max(1, untilFull)));
    }
    assertThat(admitted).as("admitted in 20 s (the bucket allows 210)")
        .isGreaterThanOrEqualTo(205);
    assertThat(throttled).as("429s").isZero();
  }

  /** One call: a permit, 10 ms to the server, 10 ms back. */
  private void call(Pacer pacer, AtomicInteger answered) {
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        refused.add(error);
        return;
      }
      clock.schedule(() -> {
        RateLimitSignal signal = server.handle();
        clock.schedule(() -> {
          permit.complete(signal);
          answered.incrementAndGet();
        }, Duration.ofMillis(10));
      }, Duration.ofMillis(10));
    });
  }
}
