package dev.headway.internal.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.ClientPolicy;
import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The timeout an adapter sends an attempt with ({@link Attempt#timeout}), on a virtual clock: a
 * call held while the server had answered nothing on its partition has the time it was held
 * taken off its client's timeout; any other wait (after an answer, for a declared limit, before a
 * retry) leaves it whole.
 */
@Timeout(30)
class HeldCallTimeoutTest {
  private static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/a"));
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(10);

  private final VirtualClock clock = VirtualClock.create();

  /** One call through a fake client: the timeout of each attempt, and its response to give. */
  private static final class Call implements PacedExchange.AsyncClient<Integer> {
    final List<Duration> timeouts = new ArrayList<>();
    final List<CompletableFuture<Integer>> sends = new ArrayList<>();
    HttpFields fields = HttpFields.empty();

    @Override
    public RequestInfo describe() {
      return GET;
    }

    @Override
    public boolean replayable() {
      return true;
    }

    @Override
    public CompletableFuture<Integer> send(Attempt attempt) {
      timeouts.add(attempt.timeout(CLIENT_TIMEOUT));
      CompletableFuture<Integer> sent = new CompletableFuture<>();
      sends.add(sent);
      return sent;
    }

    @Override
    public Integer read(Integer status, Attempt attempt) {
      attempt.complete(status, fields, null);
      return status;
    }

    @Override
    public CompletableFuture<Integer> sendUnpaced() {
      throw new AssertionError("sent unpaced");
    }

    @Override
    public Integer keep(Integer response) {
      return response;
    }

    @Override
    public void discard(Integer kept) {}
  }

  private Pacer.Builder pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(Duration.ofSeconds(30));
  }

  private static Call start(Pacer pacer) {
    Call call = new Call();
    PacedExchange.runAsync(pacer, pacer.maxWait(), 3, call);
    return call;
  }

  @Test
  void callersHeldBehindTheProbesOfFirstContactHaveTheHoldTakenOffTheirTimeout() {
    Pacer pacer = pacer().build();
    Call first = start(pacer);
    Call second = start(pacer);
    Call third = start(pacer);
    clock.advance(Duration.ofMillis(200));
    Call fourth = start(pacer); // came later: held less
    assertThat(first.timeouts).as("a probe is not held").containsExactly(CLIENT_TIMEOUT);
    assertThat(second.timeouts).containsExactly(CLIENT_TIMEOUT);
    assertThat(third.timeouts).as("held behind the probes").isEmpty();

    clock.advance(Duration.ofMillis(400)); // past the patience before any answer (550 ms)

    assertThat(third.timeouts).containsExactly(CLIENT_TIMEOUT.minusMillis(550));
    assertThat(fourth.timeouts).containsExactly(CLIENT_TIMEOUT.minusMillis(350));
    Call after = start(pacer); // nothing answered yet, but not held
    assertThat(after.timeouts).containsExactly(CLIENT_TIMEOUT);
  }

  @Test
  void aHoldLongerThanTheTimeoutLeavesOneMillisecondAndNoTimeoutStaysNone() {
    Attempt held = new Attempt(null, null, 1, Duration.ofMillis(600).toNanos());
    assertThat(held.timeout(Duration.ofSeconds(2))).isEqualTo(Duration.ofMillis(1400));
    assertThat(held.timeout(Duration.ofMillis(500))).isEqualTo(Attempt.MIN_TIMEOUT);
    assertThat(held.timeout(Duration.ZERO)).as("none stays none").isEqualTo(Duration.ZERO);
  }

  @Test
  void aProbeThatTimedOutIsAnAnswerAndTheCallersItReleasesKeepTheirWholeTimeout() {
    Pacer pacer = pacer().build();
    Call first = start(pacer);
    start(pacer);
    Call held = start(pacer);
    clock.advance(Duration.ofMillis(300));
    first.sends.get(0).completeExceptionally(new java.net.SocketTimeoutException("timeout"));
    clock.advance(Duration.ofMillis(100)); // the held caller looks again

    assertThat(held.timeouts).containsExactly(CLIENT_TIMEOUT);
  }

  @Test
  void aWaitForAWindowTheServerAnnouncedSpentLeavesTheTimeoutWhole() {
    Pacer pacer = pacer().build();
    Call first = start(pacer);
    first.fields = HttpFields.of("RateLimit-Policy", "\"default\";q=1;w=2",
        "RateLimit", "\"default\";r=0;t=2");
    first.sends.get(0).complete(200);
    Call second = start(pacer);
    assertThat(second.timeouts).as("waits for the window").isEmpty();

    clock.advance(Duration.ofMillis(2500));

    assertThat(second.timeouts).containsExactly(CLIENT_TIMEOUT);
  }

  @Test
  void aWaitForALimitTheClientDeclaredLeavesTheTimeoutWhole() {
    Pacer pacer = pacer()
        .declare(ClientPolicy.tokenBucket("mine", 1, Duration.ofSeconds(1))).build();
    start(pacer);
    Call second = start(pacer);
    assertThat(second.timeouts).as("waits for the declared bucket").isEmpty();

    clock.advance(Duration.ofMillis(1100));

    assertThat(second.timeouts).containsExactly(CLIENT_TIMEOUT);
  }

  @Test
  void aRetryAfterAThrottledFirstContactKeepsItsWholeTimeout() {
    Pacer pacer = pacer().build();
    Call call = start(pacer);
    call.fields = HttpFields.of("Retry-After", "1");
    call.sends.get(0).complete(429);

    clock.advance(Duration.ofMillis(1500));

    assertThat(call.timeouts).containsExactly(CLIENT_TIMEOUT, CLIENT_TIMEOUT);
  }
}
