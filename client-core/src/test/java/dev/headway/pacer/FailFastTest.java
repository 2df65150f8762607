package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * More callers than the quota lets through within {@code maxWait}: those who cannot make it are
 * refused when they call, not after waiting most of their budget. Failed before the fix: all 204
 * refusals came after 20 s or more; then 12 of 204 still came near the deadline (29.46 s), the
 * estimate counting on every window's whole quota.
 */
@Timeout(60)
class FailFastTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  private static final class Call {
    final CompletableFuture<Permit> future;
    long grantedAt = -1;
    long refusedAt = -1;
    boolean answered;

    Call(CompletableFuture<Permit> future) {
      this.future = future;
    }
  }

  @Test
  void callersTheQuotaCannotFitWithinMaxWaitAreRefusedAtOnce() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .maxWait(Duration.ofSeconds(30)).build();
    FakeServer server = new FakeServer(clock, 10, 1);
    pacer.acquire(GET).complete(server.handle()); // the server told its quota: 10 per second
    clock.advance(Duration.ofMillis(5));
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      Call call = new Call(pacer.acquireAsync(GET));
      call.future.whenComplete((p, e) -> {
        if (e == null) {
          call.grantedAt = clock.read();
        } else {
          call.refusedAt = clock.read();
        }
      });
      calls.add(call);
    }
    long start = clock.read();
    long waiting = calls.stream().filter(c -> !c.future.isDone()).count();
    assertThat(waiting).as("some wait, the rest were refused at once").isBetween(250L, 350L);
    assertThat(pacer.quota(API).waiting()).as("the snapshot shows the waiting line")
        .isEqualTo((int) waiting);
    assertThat(pacer.quota(API).toString()).endsWith(", " + waiting + " waiting");
    for (int step = 0; step < 4_000; step++) {
      clock.advance(Duration.ofMillis(10));
      for (Call call : calls) {
        if (call.grantedAt >= 0 && !call.answered
            && clock.read() - call.grantedAt >= 50_000_000L) {
          call.answered = true;
          call.future.join().complete(server.handle());
        }
      }
    }
    long refused = calls.stream().filter(c -> c.refusedAt >= 0).count();
    long late = calls.stream().filter(c -> c.refusedAt - start > 50_000_000L).count();
    long granted = calls.stream().filter(c -> c.grantedAt >= 0).count();
    assertThat(server.throttled()).isZero();
    assertThat(granted + refused).isEqualTo(500);
    assertThat(refused).as("they cannot all fit in 30 s at 10/s").isGreaterThan(150);
    assertThat(late).as("refusals that came after the call (of %d)", refused).isZero();
    assertThat(granted).as("the estimate leans late, by a few callers at most (296 fit)")
        .isGreaterThanOrEqualTo(280);
    assertThat(calls).filteredOn(c -> c.refusedAt >= 0)
        .allSatisfy(c -> assertThat(c.future).failsWithin(Duration.ZERO)
            .withThrowableOfType(java.util.concurrent.ExecutionException.class)
            .havingCause().isInstanceOf(RateLimitedException.class)
            .withMessageContaining(waiting + " callers ahead in line"));
  }

  @Test
  void callersTheDefaultStrategyWouldServeBeforeTheirDeadlineAreNotRefused() throws Exception {
    // 1,000 per 10 s, spent, the window ending in 2 s, 3 s to wait: the default strategy sends
    // most of a window at once, so about 800 make it. An estimate that placed the callers past
    // its first steps as if spread evenly refused all but 108-171 of them at the call.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .maxWait(Duration.ofSeconds(3)).build();
    pacer.acquire(GET).complete(Signals.limit(200, 1_000, 10, 0, 2));
    List<Call> calls = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      Call call = new Call(pacer.acquireAsync(GET));
      call.future.whenComplete((p, e) -> {
        if (e == null) {
          call.grantedAt = clock.read();
          p.release();
        } else {
          call.refusedAt = clock.read();
        }
      });
      calls.add(call);
    }
    for (int step = 0; step < 400; step++) {
      clock.advance(Duration.ofMillis(10));
    }
    long granted = calls.stream().filter(c -> c.grantedAt >= 0).count();
    assertThat(granted).as("served within 3 s of the call").isGreaterThanOrEqualTo(750);
    assertThat(calls).allSatisfy(c -> assertThat(c.future).isDone());
  }
}
