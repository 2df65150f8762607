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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hold longer than {@code maxWait} that an instance learned from the store, not from its own
 * throttled response, is checked as its own would be: once it has lasted {@code maxWait}, one
 * request goes as the check, and a success ends it. And a check another instance sent, once the
 * server admitted it, releases this instance at its next store answer. Virtual time, store round
 * trip 1 ms, {@code maxWait} 5 s; the server answers every admitted request 200.
 */
@Timeout(60)
class FleetHoldOthersTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final QuotaKey KEY = new QuotaKey("https://api.example.com:443", "requests");
  private static final long MAX_WAIT_MS = 5_000;

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();
  private final long start = clock.read();

  private int instances;

  /** A new instance: a pacer with its own name in the store, as another process would be. */
  private Pacer instance() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(Duration.ofMillis(MAX_WAIT_MS)).store(store.instance("pod-" + instances++)).build();
  }

  private static HttpFields left(int remaining) {
    return HttpFields.of("RateLimit-Policy", "\"d\";q=1000;w=60",
        "RateLimit", "\"d\";r=" + remaining + ";t=60");
  }

  private long ms() {
    return (clock.read() - start) / 1_000_000;
  }

  private <T> T await(CompletionStage<T> stage) throws Exception {
    CompletableFuture<T> f = stage.toCompletableFuture();
    for (int i = 0; i < 1_000 && !f.isDone(); i++) {
      clock.advance(Duration.ofMillis(1));
    }
    return f.get(1, TimeUnit.SECONDS);
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

  /** One tryAcquire; an admitted request is answered 200 at once. Returns whether it went. */
  private static boolean poll(Pacer pacer) {
    Optional<Permit> permit = pacer.tryAcquire(GET);
    permit.ifPresent(p -> p.complete(200, left(900), null));
    return permit.isPresent();
  }

  /** A is answered 429 {@code Retry-After: 99999999} (capped to a day); the store holds it. */
  private Instant heldForADay(Pacer a) throws Exception {
    send(a, 429, HttpFields.of("Retry-After", "99999999"));
    clock.advance(Duration.ofMillis(10));
    return await(store.read(KEY)).holdUntil().orElseThrow();
  }

  @Test
  void anInstanceAlreadyRunningChecksTheHoldItLearnedFromTheStore() throws Exception {
    Pacer a = instance();
    Pacer b = instance();
    send(a, 200, left(999));
    send(b, 200, left(998));
    clock.advance(Duration.ofMillis(100));
    heldForADay(a);
    long heldAt = ms();

    // B calls every 100 ms for 20 s; A calls no more.
    List<Long> sent = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      clock.advance(Duration.ofMillis(100));
      if (poll(b)) {
        sent.add(ms() - heldAt);
      }
    }
    System.out.println("B sent " + sent);
    // Its first call may go on a unit leased before the hold, not knowing of it yet.
    List<Long> later = sent.stream().filter(t -> t > 500).toList();
    assertThat(later).as("B's sends after its first, ms after the hold").isNotEmpty();
    assertThat(later.get(0)).as("B's check goes once the hold has lasted maxWait, within 2 s")
        .isBetween(MAX_WAIT_MS, MAX_WAIT_MS + 2_000);
    assertThat(later).as("after its check was admitted, B sends every call")
        .hasSizeGreaterThan(120);
    a.close();
    b.close();
  }

  /**
   * acquire with a budget of 1 ms, the clock moved until it is decided; an admitted request is
   * answered 200 with a count. Returns whether it went.
   */
  private boolean call(Pacer pacer) throws Exception {
    CompletableFuture<Permit> f = pacer.acquireAsync(GET, Duration.ofMillis(1));
    for (int i = 0; i < 10 && !f.isDone(); i++) {
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(f).as("decided within its budget and the store's round trip").isDone();
    if (f.isCompletedExceptionally()) {
      return false;
    }
    f.get().complete(200, left(800), null);
    return true;
  }

  /** A second instance started after A's hold; it calls every 200 ms. */
  @Test
  void aNewInstanceChecksTheHoldItLearnedFromTheStore() throws Exception {
    Pacer a = instance();
    send(a, 200, left(900));
    heldForADay(a);
    long heldAt = ms();
    Pacer b = instance();
    List<Long> sent = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      if (call(b)) {
        sent.add(ms() - heldAt);
      }
      clock.advance(Duration.ofMillis(195));
    }
    System.out.println("B sent " + sent);
    // Its first call may go before the store's answer (the store too slow for its budget).
    List<Long> later = sent.stream().filter(t -> t > 500).toList();
    assertThat(later).as("B's sends after its first, ms after the hold").isNotEmpty();
    assertThat(later.get(0)).as("B checks once the hold has lasted maxWait, within 2 s")
        .isBetween(MAX_WAIT_MS, MAX_WAIT_MS + 2_000);
    assertThat(later).as("after its check was admitted, B sends every call")
        .hasSizeGreaterThan(60);
    a.close();
    b.close();
  }

  /**
   * A second instance started after A's hold, holding it from the store's answer: A's check,
   * admitted, releases it at its next store answer, before its own check would go.
   */
  @Test
  void aLiftByAnotherInstanceReleasesOneThatLearnedTheHoldFromTheStore() throws Exception {
    Pacer a = instance();
    send(a, 200, left(900));
    heldForADay(a);
    long heldAt = ms();
    // A calls from the start of the hold, so it checks after maxWait; B starts 4 s into it.
    List<Long> aSent = new ArrayList<>();
    List<Long> bSent = new ArrayList<>();
    Pacer b = null;
    for (int i = 0; i < 100; i++) {
      if (call(a)) {
        aSent.add(ms() - heldAt);
      }
      if (i == 20) {
        b = instance();
      }
      if (b != null && call(b)) {
        bSent.add(ms() - heldAt);
      }
      clock.advance(Duration.ofMillis(190));
    }
    System.out.println("A sent " + aSent + "\nB sent " + bSent);
    assertThat(aSent).as("A checks after maxWait").isNotEmpty();
    long checked = aSent.get(0);
    assertThat(checked).isBetween(MAX_WAIT_MS, MAX_WAIT_MS + 2_000);
    List<Long> later = bSent.stream().filter(t -> t > 4_500).toList();
    assertThat(later).as("B's sends after its first, ms after the hold").isNotEmpty();
    assertThat(later.get(0)).as("A's admitted check releases B at its next store answer, before"
        + " B's own check would go").isLessThan(checked + 1_000);
    assertThat(later).as("B then sends every call").hasSizeGreaterThan(
        (int) ((20_000 - later.get(0)) / 200) - 5);
    a.close();
    b.close();
  }
}
