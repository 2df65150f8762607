package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.Reservation;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Waiters that give up (cancelled, timed out) give back their place in the schedule: the
 * requests after them move up instead of waiting for slots nobody uses.
 */
@Timeout(30)
class CancelledWaitersTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .strategy(PacingStrategy.spread()).jitter(Jitter.none()).maxJitter(Duration.ZERO)
        .maxWait(Duration.ofSeconds(60)).build();
    // 24 of 100 left, reset in 30 s: spread leaves 1.25 s per request.
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 25, 30));
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 24, 30)); // goes now, spaces the next
    return pacer;
  }

  @Test
  void cancelledWaitersCloseUpTheSchedule() throws Exception {
    Pacer pacer = pacer();
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      waiters.add(pacer.acquireAsync(GET));
    }
    assertThat(waiters).noneMatch(CompletableFuture::isDone);
    for (int i = 1; i < 20; i++) {
      assertThat(waiters.get(i).cancel(false)).isTrue();
    }
    clock.advance(Duration.ofMillis(1_250));
    Permit first = waiters.get(0).getNow(null);
    assertThat(first).as("the first waiter's slot").isNotNull();
    first.complete(Signals.limit(200, 100, 60, 23, 29));

    // Nothing in flight, 23 left for 28.75 s: the next request waits one gap, not 19 more.
    Reservation next = pacer.reserve(GET);
    assertThat(next.delay()).isLessThanOrEqualTo(Duration.ofMillis(1_500));
    assertThat(pacer.quota(GET.uri()).policy("default").orElseThrow().inFlight()).isEqualTo(1);
  }

  @Test
  void timedOutWaitersCloseUpTheScheduleToo() throws Exception {
    Pacer pacer = pacer();
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      waiters.add(pacer.acquireAsync(GET).orTimeout(1, TimeUnit.MILLISECONDS));
    }
    // orTimeout's own timer runs in real time: wait (really) for every waiter to time out.
    for (CompletableFuture<Permit> w : waiters) {
      assertThat(w).failsWithin(Duration.ofSeconds(5));
    }
    Reservation next = pacer.reserve(GET);
    assertThat(next.delay()).isLessThanOrEqualTo(Duration.ofMillis(1_500));
  }
}
