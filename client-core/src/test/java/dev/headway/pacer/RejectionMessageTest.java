package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A refused call says what happened: what it waited for, how long, and its budget. */
@Timeout(30)
class RejectionMessageTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(Duration.ofSeconds(2)).build();
  }

  @Test
  void aCallThatSpentItsBudgetSaysWhatItWaitedFor() throws Exception {
    // A budget shorter than the hold's patience (1 s): the probes are still waited for.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofMillis(500)).build();
    pacer.acquire(GET).complete(Signals.throttled(429, Optional.of(Duration.ofMillis(400)),
        List.of(), Optional.empty()));
    clock.advance(Duration.ofMillis(400));
    Permit probe1 = pacer.acquire(GET);
    Permit probe2 = pacer.acquire(GET);
    CompletableFuture<Permit> third = pacer.acquireAsync(GET);
    clock.advance(Duration.ofSeconds(3));
    RateLimitedException e = (RateLimitedException) org.junit.jupiter.api.Assertions.assertThrows(
        ExecutionException.class, third::get).getCause();
    assertThat(e.waited()).isBetween(Duration.ofMillis(400), Duration.ofMillis(500));
    assertThat(e.budget()).contains(Duration.ofMillis(500));
    assertThat(e.getMessage())
        .startsWith("Rate limited: https://api.example.com:443: waited 0.5 s of its 0.5 s budget"
            + " for answers to the requests already sent to learn the server's state (probes),"
            + " and would have to wait ")
        .endsWith("the request was not sent");
    probe1.release();
    probe2.release();
  }

  @Test
  void aCallRefusedAtOnceSaysWhichPolicyAndItsBudget() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 30));
    RateLimitedException e = org.junit.jupiter.api.Assertions.assertThrows(
        RateLimitedException.class, () -> pacer.acquire(GET));
    assertThat(e.waited()).isZero();
    assertThat(e.budget()).contains(Duration.ofSeconds(2));
    assertThat(e.getMessage()).startsWith("Rate limited: https://api.example.com:443 would have to"
        + " wait 30 s (policy default), longer than maxWait (2 s); retry at ");
  }

  @Test
  void aReservationRefusedForWantOfAPromiseDoesNotBlameMaxWait() throws Exception {
    // A spent count with no quota (X-RateLimit-Remaining: 0, X-RateLimit-Reset: 2, no limit):
    // acquire waits the 2 s and goes, but reserve cannot promise a time, since the next window's
    // size is unknown. 2 s is well within maxWait (30 s): the message said "longer than maxWait".
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).build();
    pacer.acquire(GET).complete(200, dev.headway.HttpFields.of("X-RateLimit-Remaining", "0",
        "X-RateLimit-Reset", "2"), null);
    RateLimitedException e = org.junit.jupiter.api.Assertions.assertThrows(
        RateLimitedException.class, () -> pacer.reserve(GET));
    assertThat(e.requiredWait()).isEqualTo(Duration.ofSeconds(2));
    assertThat(e.getMessage()).doesNotContain("longer than maxWait")
        .startsWith("Rate limited: https://api.example.com:443 would have to wait 2 s (policy"
            + " default), and no time to send it within maxWait (30 s) can be promised before"
            + " then; retry at ");
  }
}
