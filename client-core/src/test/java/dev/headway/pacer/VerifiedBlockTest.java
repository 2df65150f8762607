package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.ClientPolicy;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A block longer than maxWait (a zero quota, a day-long Retry-After) is checked by a single
 * probe after maxWait, then with backoff; a success lifts it.
 */
@Timeout(30)
class VerifiedBlockTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);
  static final RateLimitSignal OK = RateLimitSignal.none(200);

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(Duration.ofSeconds(2)).build();
  }

  private static RateLimitSignal dayLongRetryAfter() {
    // Retry-After: 99999999, capped by the parser's SanityCaps to a day.
    return Signals.throttled(429, Optional.of(Duration.ofDays(1)), List.of(), Optional.empty());
  }

  @Test
  void aZeroQuotaIsCheckedAndTheServerComingBackLiftsIt() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(Signals.limit(200, 0, 1, 0, 1));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    assertThatThrownBy(() -> pacer.acquire(GET)).isInstanceOf(RateLimitedException.class);
    clock.advance(Duration.ofSeconds(1));
    assertThat(pacer.tryAcquire(GET)).as("within maxWait of the block").isEmpty();

    clock.advance(Duration.ofSeconds(1));
    Permit probe = pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("no probe"));
    assertThat(pacer.tryAcquire(GET)).as("a single probe").isEmpty();
    probe.complete(Signals.limit(200, 10, 1, 9, 1));
    for (int i = 0; i < 5; i++) {
      pacer.acquire(GET).complete(Signals.limit(200, 10, 1, 8 - i, 1));
    }
  }

  @Test
  void aZeroQuotaTheServerStopsMentioningIsLiftedByASuccess() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(Signals.limit(200, 0, 60, 0, 60));
    clock.advance(Duration.ofSeconds(1));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    pacer.tryAcquire(GET).orElseThrow().complete(OK); // a plain 200, no rate-limit fields
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).complete(OK);
    }
  }

  @Test
  void aDayLongHoldIsProbedWithBackoffAndLiftedBySuccess() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(dayLongRetryAfter());
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    // The first probe, 2 s (maxWait) after the block was seen: throttled again.
    pacer.tryAcquire(GET).orElseThrow().complete(dayLongRetryAfter());
    clock.advance(Duration.ofSeconds(2));
    assertThat(pacer.tryAcquire(GET)).as("the next probe waits twice as long").isEmpty();
    RateLimitedException e = org.junit.jupiter.api.Assertions.assertThrows(
        RateLimitedException.class, () -> pacer.acquire(GET));
    assertThat(e.requiredWait()).as("the server's time").isGreaterThan(Duration.ofHours(23));
    clock.advance(Duration.ofSeconds(2));
    Permit probe = pacer.tryAcquire(GET).orElseThrow();
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    probe.complete(OK);
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).complete(OK);
    }
    assertThat(pacer.quota(API).heldFor()).isEmpty();
  }

  @Test
  void aReleasedProbeLetsTheNextRequestProbe() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(dayLongRetryAfter());
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    pacer.tryAcquire(GET).orElseThrow().release(); // the request failed before any answer
    pacer.tryAcquire(GET).orElseThrow().complete(OK);
    pacer.acquire(GET).complete(OK);
  }

  @Test
  void aClientDeclaredLimitIsNeverProbedPast() throws Exception {
    // The window starts when the pacer is made: its next unit is an hour away. (At a random
    // start, as before, one run in about 360 put a window's end inside these ten seconds.)
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2))
        .declare(ClientPolicy.fixedWindow("client", 1, Duration.ofHours(1), 1, Long.MAX_VALUE,
            Optional.of(Duration.ZERO))).build();
    pacer.acquire(GET).complete(OK);
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(2));
      assertThat(pacer.tryAcquire(GET)).isEmpty();
    }
  }

  private static RequestInfo costing(long units) {
    return new RequestInfo("POST", API, dev.headway.HttpFields.empty(),
        java.util.OptionalLong.of(units));
  }

  private Pacer costedPacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .cost(request -> request.contentLength().orElse(1)).maxWait(Duration.ofSeconds(2))
        .build();
  }

  @Test
  void aServerPolicyWithUnitsLeftIsNotProbedPastByARequestThatCostsMore() throws Exception {
    // 50 of 100 left until the reset, 100 s off: a request of 80 waits for it. The server is
    // counting as it says (it has units left), so nothing is suspect: after maxWait such a
    // request is refused until the reset, not sent as a probe into a sure 429 (a token quota
    // with a large request, as an LLM API's).
    Pacer pacer = costedPacer();
    pacer.acquire(costing(1)).complete(Signals.limit(200, 100, 120, 50, 100));
    assertThat(pacer.tryAcquire(costing(80))).isEmpty();
    for (int s = 0; s < 10; s++) {
      clock.advance(Duration.ofSeconds(2));
      assertThat(pacer.tryAcquire(costing(80))).as("at %d s", 2 * (s + 1)).isEmpty();
    }
    RateLimitedException e = org.junit.jupiter.api.Assertions.assertThrows(
        RateLimitedException.class, () -> pacer.acquire(costing(80)));
    assertThat(e.requiredWait()).as("until the server's reset")
        .isEqualTo(Duration.ofSeconds(80));
    pacer.tryAcquire(costing(50)).orElseThrow().release(); // what is left still goes
  }

  @Test
  void aSpentServerPolicyWithAFarResetIsProbedAfterMaxWait() throws Exception {
    // 0 of 100 left until a reset a day off (RateLimit-Reset: 99999999, capped): nothing would
    // go until then, so it is checked.
    Pacer pacer = costedPacer();
    pacer.acquire(costing(1)).complete(Signals.limit(200, 100, 86_400, 0, 86_400));
    assertThat(pacer.tryAcquire(costing(1))).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    Permit probe = pacer.tryAcquire(costing(1)).orElseThrow(() -> new AssertionError("no probe"));
    assertThat(pacer.tryAcquire(costing(1))).as("a single probe").isEmpty();
    probe.complete(Signals.limit(200, 100, 86_400, 99, 86_400)); // the server behaves again
    pacer.tryAcquire(costing(1)).orElseThrow().release();
  }

  @Test
  void aWindowOurOwnRequestsSpentIsBelievedNotChecked() throws Exception {
    // 10 per hour: our ten requests were admitted, the last answer saying 0 left until the reset
    // an hour off. The server is telling the truth about our own requests: the callers are
    // refused until the reset, and no check goes into the 429 it announced. (Before: a check
    // after 2 s, 4 s more, 8 s more, ... each a 429 from an honest server.) Spent at once, not
    // spread: the pacing strategy is not the point.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2))
        .strategy(dev.headway.PacingStrategy.useAllThenWait()).build();
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).complete(Signals.limit(200, 10, 3600, 9 - i, 3600));
    }
    for (int s = 0; s < 600; s++) {
      clock.advance(Duration.ofSeconds(2));
      assertThat(pacer.tryAcquire(GET)).as("at %d s", 2 * (s + 1)).isEmpty();
    }
    RateLimitedException e = org.junit.jupiter.api.Assertions.assertThrows(
        RateLimitedException.class, () -> pacer.acquire(GET));
    assertThat(e.requiredWait()).as("until the server's reset")
        .isBetween(Duration.ofSeconds(3600 - 1_201), Duration.ofSeconds(3600 - 1_200));
    clock.advance(Duration.ofSeconds(2_400));
    pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("the reset passed"))
        .complete(Signals.limit(200, 10, 3600, 9, 3600));
  }

  @Test
  void aBucketOurOwnRequestsKeepSpentIsBelievedNotChecked() throws Exception {
    // A token bucket of 6 per 750 s ("t" = until full, on the window told): one caller asks
    // every second and spends each token as it comes back, one every 125 s, so every answer
    // says 0 left with the bucket full 750 s off. Our own requests spent it: no check goes
    // into the 429 the bucket announced. (Before: a check after maxWait, 2x, 4x, ... into the
    // empty bucket; and when the spent count was believed only for answers under one reset,
    // the bucket's reset moving on with each request left it checked.)
    RefillQueueIsNotALongBlockTest.Bucket bucket =
        new RefillQueueIsNotALongBlockTest.Bucket(clock, 6, 750);
    Pacer pacer = pacer();
    for (int s = 0; s < 3600; s++) {
      pacer.tryAcquire(GET).ifPresent(permit -> permit.complete(bucket.handle()));
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(bucket.throttled).as("429s").isZero();
    assertThat(bucket.admitted).as("admitted: 6, then one per 125 s").isGreaterThanOrEqualTo(32);
  }

  @Test
  void aSpentCountToldOnA429IsStillChecked() throws Exception {
    // Three of our requests admitted (7 of 10 left), then a 429 saying 0 left for an hour: not
    // what our own requests spent. It may be the server's mistake (a block lifted early, a
    // restart), so it is checked after maxWait, and the server coming back lifts it.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2))
        .strategy(dev.headway.PacingStrategy.useAllThenWait()).build();
    for (int i = 0; i < 3; i++) {
      pacer.acquire(GET).complete(Signals.limit(200, 10, 3600, 9 - i, 3600));
    }
    pacer.acquire(GET).complete(Signals.limit(429, 10, 3600, 0, 3600));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    Permit probe = pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("no probe"));
    assertThat(pacer.tryAcquire(GET)).as("a single probe").isEmpty();
    probe.complete(Signals.limit(200, 10, 3600, 9, 3600)); // the server behaves again
    pacer.tryAcquire(GET).orElseThrow().release();
  }

  @Test
  void aBlockThatEndedOnItsOwnDoesNotLetTheNextOneBeProbedAtOnce() throws Exception {
    // Spent until a reset 5 s off (longer than maxWait, 2 s): seen at 0 s, it ends at its
    // reset without a probe. The next block, seen at 6 s, is a new one: it is checked once it
    // has lasted maxWait, not at once because the first one was seen more than maxWait ago.
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 5, 0, 5));
    assertThat(pacer.tryAcquire(GET)).as("spent").isEmpty();
    clock.advance(Duration.ofSeconds(6));
    pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("the reset passed"))
        .complete(Signals.limit(200, 10, 5, 0, 5)); // spent again, until 11 s
    assertThat(pacer.tryAcquire(GET)).as("a new block, just seen").isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(pacer.tryAcquire(GET)).as("within maxWait of the new block").isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(pacer.tryAcquire(GET)).as("the new block has lasted maxWait: one probe")
        .isPresent();
  }

  @Test
  void aBlockAfterAZeroQuotaLiftedByAnotherAnswerIsANewBlock() throws Exception {
    // A zero quota never ends by itself. Lifted here by the answer to a request already in
    // flight (not by a probe), the spent window seen after it is another block, with its own
    // maxWait before a probe.
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 8, 60));
    Permit inFlight = pacer.acquire(GET);
    pacer.acquire(GET).complete(Signals.limit(200, 0, 60, 0, 60)); // a zero quota
    assertThat(pacer.tryAcquire(GET)).as("a zero quota").isEmpty();
    // The quota is back (10), the window still spent (the zero quota's count, 0, is newer).
    inFlight.complete(Signals.limit(200, 10, 60, 2, 60));
    clock.advance(Duration.ofSeconds(3)); // past the zero quota's probe time
    assertThat(pacer.tryAcquire(GET)).as("a spent window, just seen").isEmpty();
    clock.advance(Duration.ofSeconds(2));
    assertThat(pacer.tryAcquire(GET)).as("it has lasted maxWait: one probe").isPresent();
  }

  @Test
  void aModelWithTooFewTokensIsNotProbedPastBecauseAnotherModelsTokensShareItsName()
      throws Exception {
    // Two models, each with its own "tokens" quota (an OpenAI-style API, the model chosen by
    // scopeAttribute). model-b has 50 tokens left until its reset a minute off, model-a plenty:
    // a request of 80 tokens to model-b waits for model-b's reset, and is never sent as a probe
    // because a policy of the same name elsewhere has enough.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2))
        .cost(new ScopedQuotasTest.TokenCost())
        .scopeAttribute(request -> request.headers().firstValue("x-model").orElse(null))
        .build();
    pacer.acquire(model("model-a", 1)).complete(200, openAi(10_000, 9_000), null);
    pacer.acquire(model("model-b", 1)).complete(200, openAi(1_000, 50), null);
    assertThat(pacer.tryAcquire(model("model-b", 80))).isEmpty();
    for (int s = 0; s < 10; s++) {
      clock.advance(Duration.ofSeconds(2));
      assertThat(pacer.tryAcquire(model("model-b", 80))).as("at %d s", 2 * (s + 1)).isEmpty();
    }
    pacer.tryAcquire(model("model-b", 50)).orElseThrow().release(); // what is left still goes
    pacer.tryAcquire(model("model-a", 80)).orElseThrow().release(); // and model-a is not held
  }

  private static RequestInfo model(String model, long tokens) {
    return new RequestInfo("POST", URI.create("https://api.example.com/v1/chat/completions"),
        dev.headway.HttpFields.of("x-model", model, "x-tokens", Long.toString(tokens)),
        java.util.OptionalLong.empty());
  }

  private static dev.headway.HttpFields openAi(long limitTokens, long remainingTokens) {
    return dev.headway.HttpFields.of(
        "x-ratelimit-limit-requests", "1000", "x-ratelimit-remaining-requests", "999",
        "x-ratelimit-reset-requests", "1m0s",
        "x-ratelimit-limit-tokens", Long.toString(limitTokens),
        "x-ratelimit-remaining-tokens", Long.toString(remainingTokens),
        "x-ratelimit-reset-tokens", "1m0s");
  }

  @Test
  void theLastFifthSpreadPastMaxWaitIsNotProbedPast() throws Exception {
    // 12 of 100 left until a reset 3,000 s off: the default strategy spreads them, 250 s apart.
    // A caller every 250 ms with a maxWait of 1 s is refused while it waits for the spread; the
    // spread is the pacer's own, not a block, so no probe skips it and drains what is left.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(1)).build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 3600, 12, 3000));
    int granted = 0;
    long left = 12;
    for (int i = 0; i < 60; i++) {
      clock.advance(Duration.ofMillis(250));
      var permit = pacer.tryAcquire(GET);
      if (permit.isPresent()) {
        granted++;
        permit.get().complete(Signals.limit(200, 100, 3600, --left, 3000));
      }
    }
    assertThat(granted).as("granted in 15 s of a spread of 250 s").isEqualTo(1);
  }
}
