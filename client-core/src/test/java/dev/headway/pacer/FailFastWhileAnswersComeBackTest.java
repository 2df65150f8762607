package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
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
 * Callers the line can already tell will not fit within {@code maxWait} are refused when they
 * call, also while the requests of the current window are still being answered (callers arrive
 * one after another, as threads do, not all at one instant between answers).
 */
@Timeout(60)
class FailFastWhileAnswersComeBackTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  private static final class Call {
    final long calledAt;
    final CompletableFuture<Permit> future;
    long grantedAt = -1;
    long refusedAt = -1;
    boolean answered;

    Call(long calledAt, CompletableFuture<Permit> future) {
      this.calledAt = calledAt;
      this.future = future;
    }
  }

  @Test
  void callersThatCannotFitAreRefusedAtTheCallWhileAnswersAreStillComingBack() throws Exception {
    // Failed before: a caller arriving while answers to the window's requests were still out
    // was told to look again for them (units in flight the server may have counted already),
    // not placed in line, and refused only at a later look, 50 ms or more after its call.
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .maxWait(Duration.ofSeconds(30)).build();
    FakeServer server = new FakeServer(clock, 10, 1);
    pacer.acquire(GET).complete(server.handle()); // the server told its quota: 10 per second
    clock.advance(Duration.ofMillis(5));
    List<Call> calls = new ArrayList<>();
    // 500 callers, one every 0.5 ms; each granted request is answered 20 ms after it goes.
    for (int step = 0; step < 4_000; step++) {
      if (step < 500) {
        Call call = new Call(clock.read(), pacer.acquireAsync(GET));
        call.future.whenComplete((p, e) -> {
          if (e == null) {
            call.grantedAt = clock.read();
          } else {
            call.refusedAt = clock.read();
          }
        });
        calls.add(call);
      }
      for (Call call : calls) {
        if (call.grantedAt >= 0 && !call.answered
            && clock.read() - call.grantedAt >= 20_000_000L) {
          call.answered = true;
          call.future.join().complete(server.handle());
        }
      }
      clock.advance(Duration.ofNanos(step < 500 ? 500_000 : 10_000_000));
    }
    long refused = calls.stream().filter(c -> c.refusedAt >= 0).count();
    long late = calls.stream()
        .filter(c -> c.refusedAt >= 0 && c.refusedAt - c.calledAt > 1_000_000L).count();
    long granted = calls.stream().filter(c -> c.grantedAt >= 0).count();
    System.out.printf("granted %d, refused %d, refused later than 1 ms after the call %d%n",
        granted, refused, late);
    assertThat(server.throttled()).isZero();
    assertThat(granted + refused).isEqualTo(500);
    assertThat(refused).as("they cannot all fit in 30 s at 10/s").isGreaterThan(150);
    assertThat(late).as("refusals that came after the call (of %d)", refused).isZero();
    assertThat(granted).as("the estimate leans late, by a few callers at most").isGreaterThanOrEqualTo(270);
  }
}
