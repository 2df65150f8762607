package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests that never answer: a server that hangs on first contact, a permit its holder never
 * closes. The callers behind them wait for them a bounded time (the hold's patience: one second
 * before any answer, four round trips after), never their whole {@code maxWait}; a lost permit
 * shows in the snapshot and is logged when reclaimed.
 */
@Timeout(30)
class UnansweredRequestsTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  @BeforeEach
  void forget() {
    CapturedLogs.clear();
  }

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(3)
        .maxWait(Duration.ofSeconds(30));
  }

  private static List<CompletableFuture<Permit>> acquireMany(Pacer pacer, int n) {
    List<CompletableFuture<Permit>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(pacer.acquireAsync(GET));
    }
    return out;
  }

  private static long granted(List<CompletableFuture<Permit>> futures) {
    return futures.stream().filter(f -> f.isDone() && !f.isCompletedExceptionally()).count();
  }

  @Test
  void callersBehindProbesThatNeverAnswerGoAfterOneSecondNotOneByOne() {
    Pacer pacer = builder().build(); // probes = 2
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 8);
    assertThat(granted(calls)).isEqualTo(2);
    clock.advance(Duration.ofMillis(990));
    assertThat(granted(calls)).as("the probes are still waited for").isEqualTo(2);
    clock.advance(Duration.ofMillis(20));
    assertThat(granted(calls)).as("a hanging server is not waited for past 1 s").isEqualTo(8);
  }

  @Test
  void aPermitNeverClosedCostsTheNextCallerASecondAndShowsInTheSnapshot() throws Exception {
    Pacer pacer = builder().probes(1).build();
    Permit leaked = pacer.acquire(GET); // never completed nor released
    assertThat(leaked).isNotNull();
    assertThat(pacer.quota(API).inFlight()).isEqualTo(1);
    assertThat(pacer.quota(API).toString()).endsWith("no quota known, 1 in flight");

    CompletableFuture<Permit> next = pacer.acquireAsync(GET);
    assertThat(next).isNotDone();
    clock.advance(Duration.ofSeconds(1));
    assertThat(next).isCompleted();
    next.join().complete(RateLimitSignal.none(200));
  }

  @Test
  void aReclaimedPermitIsAWarningNamingItsPartition() throws Exception {
    Pacer pacer = builder().permitLease(Duration.ofMinutes(2)).build();
    pacer.acquire(GET); // lost
    clock.advance(Duration.ofMinutes(3));
    pacer.acquire(GET).complete(RateLimitSignal.none(200)); // a decision reclaims it
    assertThat(CapturedLogs.lines("dev.headway.pacer"))
        .filteredOn(l -> l.level() == Level.WARNING).singleElement()
        .extracting(CapturedLogs.Line::message).asString()
        .startsWith("Headway: https://api.example.com:443: reclaimed a permit that was neither"
            + " completed nor released within 180 s");
    assertThat(pacer.quota(API).inFlight()).isZero();
  }

  @Test
  void theSnapshotCountsTheCallersWaitingInLine() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 10)); // spent for 10 s
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 5);
    assertThat(granted(calls)).isZero();
    assertThat(pacer.quota(API).waiting()).isEqualTo(5);
    assertThat(pacer.quota(API).toString()).endsWith(", 5 waiting");
  }
}
