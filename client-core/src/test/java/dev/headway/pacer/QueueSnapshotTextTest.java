package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.QuotaSnapshot;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What {@code quota(uri)} tells a person watching a queue: how many calls are sent and not
 * answered ("in flight") and how many are not sent yet ("waiting"), each caller in one of them.
 * Regression: with a spent quota and 10 callers queued for its reset, nothing sent, the line read
 * "default: 0 of 10 requests left per 1 s, resets in 1 s, 2 in flight (...), 10 waiting": the
 * policy's units taken by the two callers given the first send times after the reset were
 * printed as in flight, and those callers counted as waiting too.
 */
class QueueSnapshotTextTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  @Test
  void callersQueuedForTheResetAreWaitingNotInFlight() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(5)
        .build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 1, 0, 1)); // spent, resets in 1 s
    List<CompletableFuture<Permit>> calls = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      calls.add(pacer.acquireAsync(GET));
    }
    assertThat(calls).noneMatch(CompletableFuture::isDone);

    QuotaSnapshot queued = pacer.quota(API);
    assertThat(queued.inFlight()).isZero();
    assertThat(queued.waiting()).isEqualTo(10);
    assertThat(queued.toString()).contains("0 of 10 requests left")
        .endsWith(", 0 in flight, 10 waiting");

    clock.advance(Duration.ofMillis(1100)); // past the reset: the probes go
    long sent = calls.stream().filter(CompletableFuture::isDone).count();
    assertThat(sent).isPositive();
    QuotaSnapshot probing = pacer.quota(API);
    assertThat(probing.inFlight()).isEqualTo((int) sent);
    assertThat(probing.waiting()).isEqualTo(10 - (int) sent);
    assertThat(probing.toString())
        .endsWith(", " + sent + " in flight, " + (10 - sent) + " waiting");
  }
}
