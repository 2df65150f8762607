package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.ClientPolicy;
import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.Reservation;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Client-declared token buckets and fixed windows: reservations and their documented delays. */
@Timeout(30)
class DeclaredPolicyTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  @Test
  void aTokenBucketReservationWaitsTheDocumentedDelay() throws Exception {
    VirtualClock clock = VirtualClock.create().autoAdvance(true);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare(ClientPolicy.tokenBucket("tb", 10, Duration.ofMinutes(1)))
        .maxWait(Duration.ofMinutes(5)).build();

    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).complete(Signals.limit(200, 1000, 60, 900, 60));
    }
    assertThat(clock.elapsed()).isZero(); // the bucket starts full
    // (n - v) * period / rate = (1 - 0) * 60 s / 10 = 6 s
    pacer.acquire(GET).release();
    assertThat(clock.elapsed()).isEqualTo(Duration.ofSeconds(6));
  }

  @Test
  void reservationsQueueCallersAtDistinctTimesAndTheAsyncDelayIsTheDocumentedOne()
      throws Exception {
    VirtualClock clock = VirtualClock.create();
    List<PacerEvent> events = new CopyOnWriteArrayList<>();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare(ClientPolicy.tokenBucket("tb", 10, Duration.ofMinutes(1), 10, 5))
        .listener(events::add)
        .maxWait(Duration.ofMinutes(5)).build();
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).release();
    }
    CompletableFuture<Permit> a = pacer.acquireAsync(GET);
    CompletableFuture<Permit> b = pacer.acquireAsync(GET);
    CompletableFuture<Permit> c = pacer.acquireAsync(GET);
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(6),
        Duration.ofSeconds(12), Duration.ofSeconds(18));
    assertThat(events).filteredOn(e -> e instanceof PacerEvent.Delayed)
        .extracting(e -> ((PacerEvent.Delayed) e).delay())
        .containsExactly(Duration.ofSeconds(6), Duration.ofSeconds(12), Duration.ofSeconds(18));
    clock.advance(Duration.ofSeconds(6));
    assertThat(a).isCompleted();
    assertThat(b).isNotDone();
    clock.advance(Duration.ofSeconds(12));
    assertThat(b).isCompleted();
    assertThat(c).isCompleted();
  }

  @Test
  void reserveTellsTheCallerWhenToRunWithoutWaiting() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare(ClientPolicy.tokenBucket("tb", 10, Duration.ofMinutes(1)))
        .cost(request -> request.contentLength().orElse(1)) // cost = the "count" of the article
        .maxWait(Duration.ofMinutes(5)).build();
    assertThat(pacer.reserve(weighing(7)).delay()).isZero();
    // The article's example: 3 tokens left, a request for 5: balance -2, run when 2 are added,
    // (5 - 3) * 60 s / 10 = 12 s.
    Reservation r = pacer.reserve(weighing(5));
    assertThat(r.delay()).isEqualTo(Duration.ofSeconds(12));
    assertThat(clock.elapsed()).isZero();
    r.permit().release();
  }

  private static RequestInfo weighing(long units) {
    return new RequestInfo("POST", API, HttpFields.empty(), OptionalLong.of(units));
  }

  @Test
  void aReservationPastMaxReservedIsRefusedAtOnceWithWhenItWouldFit() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare(ClientPolicy.tokenBucket("tb", 10, Duration.ofMinutes(1), 10, 1))
        .maxWait(Duration.ofMinutes(5)).build();
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).release();
    }
    CompletableFuture<Permit> reserved = pacer.acquireAsync(GET); // balance -1: allowed
    assertThat(reserved).isNotDone();
    assertThatThrownBy(() -> pacer.acquire(GET))
        .isInstanceOfSatisfying(RateLimitedException.class, e -> {
          assertThat(e.policy()).contains("tb");
          assertThat(e.requiredWait()).isEqualTo(Duration.ofSeconds(6));
          assertThat(e.retryAt()).isEqualTo(VirtualClock.DEFAULT_EPOCH.plusSeconds(6));
        });
    assertThat(clock.elapsed()).isZero();
  }

  @Test
  void aCancelledReservationGivesItsTokensBack() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare(ClientPolicy.tokenBucket("tb", 10, Duration.ofMinutes(1)))
        .build();
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).release();
    }
    CompletableFuture<Permit> first = pacer.acquireAsync(GET);
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(6));
    first.cancel(false);
    pacer.acquireAsync(GET);
    assertThat(clock.pendingDelays()).containsExactly(Duration.ofSeconds(6));
  }

  @Test
  void aFixedWindowWithAKnownStartLetsRatePerWindowAndReservesTheNext() throws Exception {
    VirtualClock clock = VirtualClock.create(); // 2025-01-01T00:00:00Z, a window boundary
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare(ClientPolicy.fixedWindow("fw", 5, Duration.ofMinutes(1), 5, Long.MAX_VALUE,
            Optional.of(Duration.ZERO)))
        .maxWait(Duration.ofMinutes(5)).build();
    clock.advance(Duration.ofSeconds(15));
    for (int i = 0; i < 5; i++) {
      assertThat(pacer.tryAcquire(GET)).isPresent();
    }
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    List<CompletableFuture<Permit>> waiters = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      waiters.add(pacer.acquireAsync(GET));
    }
    // The next window (45 s away) takes five; the 6th reservation is two windows out (105 s).
    clock.advance(Duration.ofSeconds(45).minusMillis(1));
    assertThat(waiters).noneMatch(CompletableFuture::isDone);
    clock.advance(Duration.ofMillis(1));
    assertThat(waiters.subList(0, 5)).allMatch(CompletableFuture::isDone);
    assertThat(waiters.get(5)).isNotDone();
    clock.advance(Duration.ofSeconds(60).minusMillis(1));
    assertThat(waiters.get(5)).isNotDone();
    clock.advance(Duration.ofMillis(1));
    assertThat(waiters.get(5)).isCompleted();
  }

  @Test
  void aFixedWindowWithoutStartBeginsAtASeededRandomOffset() {
    VirtualClock clock = VirtualClock.create();
    Duration a = firstReservationDelay(clock, 7);
    Duration b = firstReservationDelay(VirtualClock.create(), 7);
    Duration c = firstReservationDelay(VirtualClock.create(), 8);
    assertThat(a).isEqualTo(b).isBetween(Duration.ZERO, Duration.ofMinutes(1));
    assertThat(c).isNotEqualTo(a);
  }

  private static Duration firstReservationDelay(VirtualClock clock, long seed) {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(seed)
        .declare(ClientPolicy.fixedWindow("fw", 1, Duration.ofMinutes(1)))
        .maxWait(Duration.ofMinutes(5)).build();
    assertThat(pacer.tryAcquire(GET)).isPresent();
    pacer.acquireAsync(GET);
    return clock.pendingDelays().get(0);
  }

  @Test
  void theMostRestrictiveOfDeclaredAndServerPoliciesDecides() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .declare("https://api.example.com:443", ClientPolicy.tokenBucket("tb", 100,
            Duration.ofMinutes(1)))
        .build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 20)); // server: spent for 20 s
    assertThatThrownBy(() -> pacer.acquire(GET, Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(RateLimitedException.class,
            e -> assertThat(e.policy()).contains("default"));
    assertThat(pacer.quota(API).policies()).extracting(p -> p.name())
        .containsExactlyInAnyOrder("tb", "default");
    assertThat(pacer.quota(URI.create("https://other.example.com/")).policies()).isEmpty();
  }

  @Test
  void declaredPoliciesAreValidatedNamingTheField() {
    assertThatThrownBy(() -> ClientPolicy.tokenBucket("tb", -1, Duration.ofMinutes(1)))
        .hasMessage("rate must be positive but was -1");
    assertThatThrownBy(() -> ClientPolicy.tokenBucket("tb", 1, Duration.ZERO))
        .hasMessage("period must be positive but was PT0S");
    assertThatThrownBy(() -> ClientPolicy.tokenBucket("tb", 1, Duration.ofSeconds(1), 0, 0))
        .hasMessage("capacity must be positive but was 0");
    assertThatThrownBy(() -> ClientPolicy.tokenBucket("tb", 1, Duration.ofSeconds(1), 1, -2))
        .hasMessage("maxReserved must not be negative but was -2");
    assertThatThrownBy(() -> ClientPolicy.fixedWindow("fw", 5, Duration.ofSeconds(1), 5, 0,
        Optional.of(Duration.ofSeconds(1))))
        .hasMessage("start must be in [0, period) but was PT1S");
  }
}
