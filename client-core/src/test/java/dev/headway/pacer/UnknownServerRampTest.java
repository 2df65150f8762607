package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that has said nothing of its limits (no number, no 429) gets at most
 * {@code probes + sqrt(2 x admitted)} requests in flight: many callers released at once into a
 * bucket no header describes no longer all run into it when it runs dry. The bound ends at the
 * first number or 429, or once the callers need no more. Virtual time throughout.
 */
@Timeout(60)
class UnknownServerRampTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final long SECOND = 1_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();

  /** What the server saw: when each request arrived and whether it was refused. */
  record Arrival(long atNanos, boolean refused) {}

  /**
   * A token bucket of {@code capacity} (100 unless said), one token back every
   * {@code refillMillis} (0.6 s unless said); 429s carry Retry-After only.
   */
  static final class Bucket implements LongFunction<RateLimitSignal> {
    final double capacity;
    final double refillNanos;
    double tokens;
    long last;

    Bucket() {
      this(100, 600);
    }

    Bucket(double capacity, long refillMillis) {
      this.capacity = capacity;
      this.refillNanos = refillMillis * 1e6;
      this.tokens = capacity;
    }

    @Override
    public RateLimitSignal apply(long now) {
      tokens = Math.min(capacity, tokens + (now - last) / refillNanos);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return RateLimitSignal.none(200);
      }
      long wait = (long) Math.ceil((1 - tokens) * refillNanos);
      return Signals.throttled(429, Optional.of(Duration.ofSeconds((wait + SECOND - 1) / SECOND)),
          List.of(), Optional.empty());
    }
  }

  /** {@code callers} async closed-loop callers, 25 ms each way, for {@code seconds}. */
  private List<Arrival> run(Pacer pacer, LongFunction<RateLimitSignal> server, int callers,
      long seconds) {
    return run(pacer, server, callers, seconds, Duration.ofMillis(25));
  }

  /** {@code callers} async closed-loop callers, {@code oneWay} each way, for {@code seconds}. */
  private List<Arrival> run(Pacer pacer, LongFunction<RateLimitSignal> server, int callers,
      long seconds, Duration oneWay) {
    List<Arrival> arrivals = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      call(pacer, server, arrivals, oneWay);
    }
    long steps = seconds * 100;
    for (long step = 0; step < steps; step++) {
      clock.advance(Duration.ofMillis(10));
    }
    return arrivals;
  }

  private void call(Pacer pacer, LongFunction<RateLimitSignal> server, List<Arrival> arrivals,
      Duration oneWay) {
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        clock.schedule(() -> call(pacer, server, arrivals, oneWay),
            ((RateLimitedException) cause).requiredWait().plusMillis(1));
        return;
      }
      clock.schedule(() -> {
        RateLimitSignal answer = server.apply(clock.read());
        arrivals.add(new Arrival(clock.read(), answer.status() == 429));
        clock.schedule(() -> {
          permit.complete(answer);
          call(pacer, server, arrivals, oneWay);
        }, oneWay);
      }, oneWay);
    });
  }

  @Test
  void sixtyFourCallersReleasedIntoAnUndescribedBucketDrawFew429s() {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .build();
    List<Arrival> arrivals = run(pacer, new Bucket(), 64, 5);
    long refused = arrivals.stream().filter(Arrival::refused).count();
    long admitted = arrivals.size() - refused;
    // Released at once, the 64 callers had about 60 requests in flight when the bucket of 100
    // ran dry, and every one was refused. At most 2 + sqrt(2 x 100) = 16 are in flight then.
    assertThat(refused).as("429s in the first 5 s").isLessThanOrEqualTo(20);
    assertThat(admitted).as("the bucket's 100 and its refill").isGreaterThanOrEqualTo(100);
  }

  @Test
  void callersHeldByTheBoundAreStillHeldWhenAFastServersAnswersComeBackBeforeTheyLookAgain() {
    // 51 callers released at once into a bucket of 74 that answers in 5 ms (simulator, Retry-After
    // only, seed 9521: 74 per 1,627 s). The two callers with the probes were answered, and
    // went again, many times before the 49 the bound held back looked again (a recheck interval
    // later): a round trip's worth of answers came back with nobody turned away meanwhile, so
    // the bound ended, and the 49 went at once into the bucket's last few tokens: 50 429s. A
    // caller the bound turned away less than a recheck interval ago is still held back.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(7)
        .build();
    Bucket bucket = new Bucket(74, 22_000);
    List<Arrival> arrivals = run(pacer, bucket, 51, 5, Duration.ofNanos(2_500_000));
    long refused = arrivals.stream().filter(Arrival::refused).count();
    long admitted = arrivals.size() - refused;
    assertThat(refused).as("429s in the first 5 s").isLessThanOrEqualTo(2 + 13 + 2);
    assertThat(admitted).as("the bucket's 74").isGreaterThanOrEqualTo(74);
  }

  @Test
  void theBoundGrowsWithWhatTheServerAdmitsAndEndsOnceNobodyWaits() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200)); // first contact: 1 admitted
    List<CompletableFuture<Permit>> first = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      first.add(pacer.acquireAsync(GET));
    }
    // 2 + sqrt(2 x 1) = 3.4: three in flight, the others wait for answers.
    assertThat(first.stream().filter(CompletableFuture::isDone).count()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      first.get(i).join().complete(RateLimitSignal.none(200)); // 4 admitted: 2 + sqrt(8) = 4.8
    }
    clock.advance(Duration.ofMillis(100)); // the waiting callers look again
    assertThat(first.get(3)).isDone();
    assertThat(first.get(4)).isDone();
    List<CompletableFuture<Permit>> more = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      more.add(pacer.acquireAsync(GET));
    }
    assertThat(more.stream().filter(CompletableFuture::isDone).count())
        .as("4 in flight at most").isEqualTo(2);
    first.get(3).join().complete(RateLimitSignal.none(200));
    first.get(4).join().complete(RateLimitSignal.none(200));
    clock.advance(Duration.ofMillis(100));
    for (CompletableFuture<Permit> f : more) {
      f.join().complete(RateLimitSignal.none(200));
    }
    // One caller from now on: a round trip's worth of responses with nobody held back ends the
    // bound for good.
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).complete(RateLimitSignal.none(200));
    }
    List<CompletableFuture<Permit>> all = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      all.add(pacer.acquireAsync(GET));
    }
    assertThat(all).as("no bound any more").allMatch(CompletableFuture::isDone);
  }

  @Test
  void aNumberEndsTheBoundAtOnce() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    pacer.acquire(GET).complete(Signals.limit(200, 1_000, 60, 900, 60));
    List<CompletableFuture<Permit>> all = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      all.add(pacer.acquireAsync(GET));
    }
    assertThat(all).as("the server's quota governs, not the bound")
        .allMatch(CompletableFuture::isDone);
  }

  @Test
  void aCallerHeldByTheBoundGoesOnceTheUnansweredHaveBeenOutForThePatience() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200)); // 1 admitted: 3 in flight at most
    for (int i = 0; i < 3; i++) {
      assertThat(pacer.acquireAsync(GET)).isDone(); // in flight, never answered
    }
    CompletableFuture<Permit> held = pacer.acquireAsync(GET, Duration.ofSeconds(20));
    clock.advance(Duration.ofMillis(990));
    assertThat(held).as("held by the bound while answers may still come").isNotDone();
    clock.advance(Duration.ofMillis(20));
    assertThat(held).as("what has been out 1 s without an answer is not waited for")
        .isCompletedWithValueMatching(permit -> permit != null);
  }

  @Test
  void aCallerHeldByTheBoundGoesWhenItsMaxWaitRunsOutNotLater() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200)); // 1 admitted: 3 in flight at most
    for (int i = 0; i < 3; i++) {
      assertThat(pacer.acquireAsync(GET)).isDone(); // in flight, never answered
    }
    CompletableFuture<Permit> held = pacer.acquireAsync(GET, Duration.ofMillis(800));
    clock.advance(Duration.ofMillis(700));
    assertThat(held).as("held by the bound while answers may still come").isNotDone();
    clock.advance(Duration.ofMillis(100));
    assertThat(held).as("nothing says the server limits anything: it goes at its maxWait")
        .isCompletedWithValueMatching(permit -> permit != null);
  }

  @Test
  void aHeldCallerCancelledByItsOwnerTakesNoPlaceInFlight() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200)); // 1 admitted: 3 in flight at most
    List<Permit> out = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      out.add(pacer.acquireAsync(GET).join());
    }
    CompletableFuture<Permit> cancelled = pacer.acquireAsync(GET);
    CompletableFuture<Permit> next = pacer.acquireAsync(GET);
    assertThat(cancelled).isNotDone();
    assertThat(cancelled.cancel(true)).isTrue();
    for (Permit permit : out) {
      permit.complete(RateLimitSignal.none(200)); // 4 admitted: 2 + sqrt(8) = 4.8
    }
    clock.advance(Duration.ofMillis(100));
    assertThat(next).as("the caller behind the cancelled one").isDone();
    List<CompletableFuture<Permit>> more = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      more.add(pacer.acquireAsync(GET));
    }
    // 4 in flight at most: `next` and three more; the cancelled caller holds no place.
    assertThat(more.stream().filter(CompletableFuture::isDone).count()).isEqualTo(3);
  }

  @Test
  void aTryAcquireAtTheBoundIsRefusedAndGoesOnceAnAnswerMakesRoom() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200)); // 1 admitted: 3 in flight at most
    List<Permit> out = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Optional<Permit> permit = pacer.tryAcquire(GET);
      assertThat(permit).as("below the bound: goes at once").isPresent();
      out.add(permit.get());
    }
    // A caller that cannot wait gets nothing at the bound: it never waited for the answers
    // that would make room, so going anyway would leave the bound holding nobody back.
    assertThat(pacer.tryAcquire(GET)).as("at the bound").isEmpty();
    assertThat(pacer.tryAcquire(GET)).as("still at the bound").isEmpty();
    out.get(0).complete(RateLimitSignal.none(200)); // 2 admitted: 2 + sqrt(4) = 4 in flight
    assertThat(pacer.tryAcquire(GET)).as("an answer made room for two").isPresent();
    assertThat(pacer.tryAcquire(GET)).isPresent();
    assertThat(pacer.tryAcquire(GET)).as("at the bound again").isEmpty();
  }

  @Test
  void aTryAcquireBeforeTheFirstAnswerIsRefusedOnceTheProbesAreOut() {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    List<Permit> probes = new ArrayList<>();
    for (Optional<Permit> p = pacer.tryAcquire(GET); p.isPresent(); p = pacer.tryAcquire(GET)) {
      probes.add(p.get());
      assertThat(probes).as("a few probes, not every tryAcquire").hasSizeLessThanOrEqualTo(4);
    }
    assertThat(probes).as("the probes of first contact").isNotEmpty();
    probes.get(0).complete(RateLimitSignal.none(200));
    assertThat(pacer.tryAcquire(GET)).as("the first answer opens the ramp").isPresent();
  }
}
