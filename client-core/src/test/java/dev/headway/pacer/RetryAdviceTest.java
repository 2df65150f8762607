package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.failsafe.Failsafe;
import dev.failsafe.RetryPolicy;
import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.RetryBudget;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Retry advice: precedence, jitter that only adds, caps, budget, methods. */
@Timeout(30)
class RetryAdviceTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);
  static final RequestInfo POST = new RequestInfo("POST", API, HttpFields.empty(),
      OptionalLong.empty());

  private final VirtualClock clock = VirtualClock.create();

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3);
  }

  private static RateLimitSignal throttled(int status, Integer retryAfter, Integer reset,
      Integer body) {
    return Signals.throttled(status,
        retryAfter == null ? Optional.empty() : Optional.of(Duration.ofSeconds(retryAfter)),
        reset == null ? List.of() : List.of(Signals.item(0, reset)),
        body == null ? Optional.empty() : Optional.of(Duration.ofSeconds(body)));
  }

  @Test
  void retryAfterTakesPrecedenceThenTheResetThenTheBodyHint() {
    Pacer pacer = builder().jitter(Jitter.none()).build();
    assertThat(pacer.retryDelay(GET, throttled(429, 7, 20, 9), 1)).contains(Duration.ofSeconds(7));
    assertThat(pacer.retryDelay(GET, throttled(429, null, 20, 9), 1))
        .contains(Duration.ofSeconds(20));
    assertThat(pacer.retryDelay(GET, throttled(429, null, null, 9), 1))
        .contains(Duration.ofSeconds(9));
  }

  @Test
  void withoutAServerTimeTheDelayIsExponentialBackoff() {
    Pacer pacer = builder().jitter(Jitter.none()).baseBackoff(Duration.ofSeconds(1))
        .maxBackoff(Duration.ofSeconds(3)).maxAttempts(5).build();
    RateLimitSignal bare = throttled(429, null, null, null);
    assertThat(pacer.retryDelay(GET, bare, 1)).contains(Duration.ofSeconds(1));
    assertThat(pacer.retryDelay(GET, bare, 2)).contains(Duration.ofSeconds(2));
    assertThat(pacer.retryDelay(GET, bare, 3)).contains(Duration.ofSeconds(3)); // capped
  }

  @Test
  void jitterOnlyAddsToAServerGivenTimeAndStaysWithinMaxWait() {
    // 400 advices with no success between them: more than any retry budget pays for.
    Pacer pacer = builder().jitter(Jitter.full()).maxJitter(Duration.ofSeconds(1))
        .maxWait(Duration.ofSeconds(30)).retryBudget(RetryBudget.off()).build();
    boolean varied = false;
    Duration first = null;
    for (int i = 0; i < 200; i++) {
      Duration d = pacer.retryDelay(GET, throttled(429, 20, null, null), 1).orElseThrow();
      assertThat(d).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(21));
      varied |= first != null && !d.equals(first);
      first = first == null ? d : first;
      Duration edge = pacer.retryDelay(GET, throttled(429, 30, null, null), 1).orElseThrow();
      assertThat(edge).isEqualTo(Duration.ofSeconds(30));
    }
    assertThat(varied).as("jitter varies").isTrue();
  }

  @Test
  void fullJitterSpreadsBackoffBelowTheComputedDelay() {
    Pacer pacer = builder().jitter(Jitter.full()).retryBudget(RetryBudget.off()).build(); // 100 advices
    for (int i = 0; i < 100; i++) {
      assertThat(pacer.retryDelay(GET, throttled(429, null, null, null), 2).orElseThrow())
          .isBetween(Duration.ZERO, Duration.ofSeconds(2));
    }
    Pacer equal = builder().jitter(Jitter.equal()).retryBudget(RetryBudget.off()).build();
    for (int i = 0; i < 100; i++) {
      assertThat(equal.retryDelay(GET, throttled(429, null, null, null), 2).orElseThrow())
          .isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
    }
  }

  @Test
  void theAttemptBudgetAndMaxWaitEndRetries() {
    Pacer pacer = builder().maxAttempts(3).maxWait(Duration.ofSeconds(30)).build();
    assertThat(pacer.retryDelay(GET, throttled(429, 1, null, null), 2)).isPresent();
    assertThat(pacer.retryDelay(GET, throttled(429, 1, null, null), 3)).isEmpty();
    assertThat(pacer.retryDelay(GET, throttled(429, 31, null, null), 1)).isEmpty();
    assertThat(pacer.retryDelay(GET, Signals.limit(200, 10, 60, 0, 5), 1)).isEmpty();
  }

  @Test
  void a503IsRetriedOnlyWithRetryAfterAndNotForNonIdempotentMethodsUnlessConfigured() {
    Pacer pacer = builder().build();
    assertThat(pacer.retryDelay(GET, throttled(503, null, 5, null), 1)).isEmpty();
    assertThat(pacer.retryDelay(GET, throttled(503, 5, null, null), 1)).isPresent();
    assertThat(pacer.retryDelay(POST, throttled(503, 5, null, null), 1)).isEmpty();
    assertThat(pacer.retryDelay(POST, throttled(429, 5, null, null), 1)).isPresent();
    Pacer lenient = builder().retryNonIdempotentOn503(true).build();
    assertThat(lenient.retryDelay(POST, throttled(503, 5, null, null), 1)).isPresent();
  }

  /** The recipe of docs/pacer.md: a Failsafe policy for one call, built on the retry advice. */
  private static <R> RetryPolicy<R> forOneCall(Pacer pacer, RequestInfo request,
      Function<? super R, RateLimitSignal> signalOf) {
    AtomicInteger responses = new AtomicInteger();
    AtomicReference<Duration> advised = new AtomicReference<>(Duration.ZERO);
    return RetryPolicy.<R>builder()
        .handleIf((result, failure) -> {
          if (failure != null || result == null) {
            return false;
          }
          Optional<Duration> delay =
              pacer.retryDelay(request, signalOf.apply(result), responses.incrementAndGet());
          delay.ifPresent(advised::set);
          return delay.isPresent();
        })
        .withDelayFn(context -> advised.get())
        .withMaxAttempts(pacer.maxAttempts())
        .build();
  }

  @Test
  void aFailsafeRetryPolicyBuiltOnTheAdviceRetriesThrottledResultsWithinTheBudget() {
    Pacer pacer = builder().jitter(Jitter.none()).maxAttempts(3).build();
    Function<RateLimitSignal, RateLimitSignal> itself = signal -> signal;
    AtomicInteger calls = new AtomicInteger();
    RateLimitSignal result = Failsafe.with(forOneCall(pacer, GET, itself)).get(() -> {
      calls.incrementAndGet();
      return calls.get() < 2 ? throttled(429, 0, null, null) : RateLimitSignal.none(200);
    });
    assertThat(result.status()).isEqualTo(200);
    assertThat(calls.get()).isEqualTo(2);

    calls.set(0);
    RateLimitSignal last = Failsafe.with(forOneCall(pacer, GET, itself)).get(() -> {
      calls.incrementAndGet();
      return throttled(429, 0, null, null);
    });
    assertThat(last.status()).isEqualTo(429);
    assertThat(calls.get()).isEqualTo(3);

    calls.set(0);
    Failsafe.with(forOneCall(pacer, GET, itself)).get(() -> {
      calls.incrementAndGet();
      return throttled(503, null, null, null); // no Retry-After: not retried
    });
    assertThat(calls.get()).isEqualTo(1);

    calls.set(0);
    assertThatThrownBy(() -> Failsafe.with(forOneCall(pacer, GET, itself))
        .get(() -> {
          calls.incrementAndGet();
          throw new IllegalStateException("not a response");
        })).isInstanceOf(IllegalStateException.class);
    assertThat(calls.get()).as("exceptions are not retried").isEqualTo(1);
  }
}
