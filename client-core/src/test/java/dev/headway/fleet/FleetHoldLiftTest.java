package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaKey;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hold longer than {@code maxWait} is checked by one request once {@code maxWait} has passed;
 * when the server admits it, the hold is over for the whole fleet: the store's hold is lifted,
 * so neither the instance that checked nor one that starts later is held by it again. Virtual
 * time, store round trip 1 ms.
 */
@Timeout(60)
class FleetHoldLiftTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "requests");

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  private Pacer instance() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(Duration.ofSeconds(5)).store(store).build();
  }

  private static HttpFields left(int remaining) {
    return HttpFields.of("RateLimit-Policy", "\"d\";q=1000;w=60",
        "RateLimit", "\"d\";r=" + remaining + ";t=60");
  }

  /** The store's answer, the virtual clock moved a millisecond at a time until it came. */
  private <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
    java.util.concurrent.CompletableFuture<T> f = stage.toCompletableFuture();
    for (int i = 0; i < 1_000 && !f.isDone(); i++) {
      clock.advance(Duration.ofMillis(1));
    }
    return f.get(1, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Sends one request as soon as the pacer lets it (a millisecond at a time), answered so. */
  private void send(Pacer pacer, int status, HttpFields answer) {
    for (int i = 0; i < 1_000; i++) {
      Optional<Permit> permit = pacer.tryAcquire(GET);
      if (permit.isPresent()) {
        permit.get().complete(status, answer, null);
        return;
      }
      clock.advance(Duration.ofMillis(1));
    }
    throw new AssertionError("no permit within a second");
  }

  /** tryAcquire every 100 ms for {@code seconds}; an admitted request is answered 200. */
  private int sent(Pacer pacer, int seconds) {
    int sent = 0;
    for (int i = 0; i < seconds * 10; i++) {
      clock.advance(Duration.ofMillis(100));
      Optional<Permit> permit = pacer.tryAcquire(GET);
      if (permit.isPresent()) {
        sent++;
        permit.get().complete(200, left(900), null);
      }
    }
    return sent;
  }

  /**
   * The server gives a count, then says come back in a day (capped from 99999999 s): returns the
   * fleet's hold as the store then holds it.
   */
  private Optional<Instant> heldForADay(Pacer pacer) throws Exception {
    send(pacer, 200, left(999));
    send(pacer, 429, HttpFields.of("Retry-After", "99999999"));
    clock.advance(Duration.ofMillis(10));
    return await(store.read(KEY)).holdUntil();
  }

  @Test
  void aSuccessfulCheckOfADayLongHoldEndsItForTheFleet() throws Exception {
    Pacer a = instance();
    assertThat(heldForADay(a)).isPresent();

    // Within maxWait and a second, one request checks the hold; the server admits it.
    int beforeCheck = 0;
    for (int i = 0; i < 70 && beforeCheck == 0; i++) {
      clock.advance(Duration.ofMillis(100));
      Optional<Permit> check = a.tryAcquire(GET);
      if (check.isPresent()) {
        beforeCheck++;
        check.get().complete(200, left(998), null);
      }
    }
    assertThat(beforeCheck).as("the check went within maxWait and a second").isEqualTo(1);
    clock.advance(Duration.ofMillis(10));
    assertThat(await(store.read(KEY)).holdUntil())
        .as("the store's hold is lifted").isEmpty();

    // The instance that checked sends as a pacer without a store would: every call.
    assertThat(sent(a, 60)).isEqualTo(600);
    // An instance started after the check is not held by the hold the check disproved.
    Pacer c = instance();
    assertThat(sent(c, 10)).isEqualTo(100);
    a.close();
    c.close();
  }

  @Test
  void anotherInstancesLaterRefusalIsNotLifted() throws Exception {
    Pacer a = instance();
    Instant checked = heldForADay(a).orElseThrow();
    // Another instance's newer refusal holds the fleet longer still (a day from now).
    clock.advance(Duration.ofSeconds(2));
    await(store.hold(KEY, checked.plusSeconds(2)));
    await(store.lift(KEY, checked));
    assertThat(await(store.read(KEY)).holdUntil())
        .contains(checked.plusSeconds(2));
    a.close();
  }
}
