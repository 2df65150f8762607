package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
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
 * First contact with a slow server (an LLM API answering in 30 s and more): the callers beyond
 * the probes wait for the first answer for the patience (550 ms), then go; none fails for lack of
 * news, since nothing says the server limits anything.
 */
@Timeout(30)
class FirstContactTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://llm.example.com/v1/chat"));

  private final VirtualClock clock = VirtualClock.create();

  @Test
  void callersBeyondTheProbesGoWhenTheirBudgetEndsWithoutAnAnswer() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2)).build();
    List<CompletableFuture<Permit>> calls = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      calls.add(pacer.acquireAsync(GET));
    }
    assertThat(calls.stream().filter(CompletableFuture::isDone).count()).as("the probes")
        .isEqualTo(2);
    clock.advance(Duration.ofMillis(540));
    assertThat(calls.stream().filter(CompletableFuture::isDone).count())
        .as("the others still wait for an answer").isEqualTo(2);
    // No answer within the hold's patience (550 ms before any answer): a slow or hanging server
    // is not waited for longer; the callers go rather than fail for lack of news.
    clock.advance(Duration.ofMillis(20));
    assertThat(calls).allSatisfy(call -> assertThat(call).isCompleted());
    assertThat(calls).noneMatch(CompletableFuture::isCompletedExceptionally);
    // The answers come back at last; none of them limits anything.
    for (CompletableFuture<Permit> call : calls) {
      call.join().complete(RateLimitSignal.none(200));
    }
    pacer.acquire(GET).release();
  }

  @Test
  void onceTheServerAnsweredTheProbesRuleHoldsAgain() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2)).build();
    pacer.acquire(GET).complete(Signals.throttled(429,
        java.util.Optional.of(Duration.ofSeconds(1)), List.of(), java.util.Optional.empty()));
    clock.advance(Duration.ofSeconds(1));
    // After the hold: two probes, then the others wait for their answers, for the hold's
    // patience at most (1 s here: four round trips of the last answer, at least 1 s).
    pacer.acquire(GET);
    pacer.acquire(GET);
    CompletableFuture<Permit> third = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(990));
    assertThat(third).isNotDone();
    clock.advance(Duration.ofMillis(20));
    assertThat(third).isCompleted();
  }
}
