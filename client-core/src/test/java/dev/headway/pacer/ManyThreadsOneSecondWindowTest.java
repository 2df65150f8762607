package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * QuotaServerLoadTest of hostile-server-tests in virtual time: 200 callers send 50 requests
 * each, back to back, through one pacer with its defaults, to a fixed window of 1,000 per second
 * that says {@code RateLimit-Policy} and a whole-second {@code t} on every response; each way
 * takes 0.2 to 2.2 ms (seeded). No window may receive more than its quota, and nothing is
 * throttled. The seeds are those that drew 27 to 61 429s (windows of up to 1,027) before a count
 * of the next window not taken was counted as ours (see {@link UntakenCountsTest}).
 */
@Timeout(120)
class ManyThreadsOneSecondWindowTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final int CALLERS = 200;
  static final int CALLS = 50;
  static final long QUOTA = 1_000;

  @ParameterizedTest
  @ValueSource(longs = {5, 12})
  void noWindowReceivesMoreThanItsQuota(long seed) {
    VirtualClock clock = VirtualClock.create();
    clock.advance(Duration.ofMillis(137 * seed % 1000)); // start somewhere inside a window
    FakeServer server = new FakeServer(clock, QUOTA, 1);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(seed)
        .maxWait(Duration.ofSeconds(10)).build();
    Random random = new Random(seed);
    AtomicInteger refused = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    for (int i = 0; i < CALLERS; i++) {
      call(pacer, clock, server, random, refused, done, CALLS);
    }
    for (int step = 0; step < 40_000 && done.get() < CALLERS; step++) {
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(done).as("callers done").hasValue(CALLERS);
    assertThat(refused).as("calls refused").hasValue(0);
    assertThat(server.received()).isEqualTo(CALLERS * CALLS);
    for (long w = 0; w < 40; w++) {
      assertThat(server.sentInWindow(w)).as("received in window %d", w)
          .isLessThanOrEqualTo(QUOTA);
    }
    assertThat(server.throttled()).as("429s").isZero();
  }

  private static Duration oneWay(Random random) {
    return Duration.ofNanos((200 + random.nextInt(2_000)) * 1_000L);
  }

  /** One caller's calls, one after the other: a permit, to the server, back, the next one. */
  private static void call(Pacer pacer, VirtualClock clock, FakeServer server, Random random,
      AtomicInteger refused, AtomicInteger done, int left) {
    if (left == 0) {
      done.incrementAndGet();
      return;
    }
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        refused.incrementAndGet();
        call(pacer, clock, server, random, refused, done, left - 1);
        return;
      }
      clock.schedule(() -> {
        RateLimitSignal signal = server.handle();
        clock.schedule(() -> {
          permit.complete(signal);
          call(pacer, clock, server, random, refused, done, left - 1);
        }, oneWay(random));
      }, oneWay(random));
    });
  }
}
