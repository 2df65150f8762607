package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
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
 * closes. The callers behind them wait for them a bounded time (the hold's patience: 550 ms
 * before any answer, four round trips and at least a second after), never their whole
 * {@code maxWait}; a probe that ends with no response (a timeout, an I/O error) is an answer; a
 * lost permit shows in the snapshot and is logged when reclaimed.
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
  void callersBehindProbesThatNeverAnswerAllGoAfterThePatienceHoweverMany() {
    // Failed before: the bound on requests in flight doubled each 550 ms without an answer, so
    // 64 callers went 2, 4, 8, ... at a time and the last five doublings late (2.75 s); 8 OkHttp
    // callers with a 10 s read timeout failed at 10, 10.55 and 11.1 s, not all at 10.55 s.
    Pacer pacer = builder().build(); // probes = 2
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 64);
    assertThat(granted(calls)).isEqualTo(2);
    clock.advance(Duration.ofMillis(540));
    assertThat(granted(calls)).as("the probes are still waited for").isEqualTo(2);
    clock.advance(Duration.ofMillis(20));
    assertThat(granted(calls)).as("550 ms without an answer: every caller goes").isEqualTo(64);
  }

  @Test
  void aFirstAnswerWithinThePatienceTellsTheQuotaBeforeTheCallersGo() {
    // A first answer at 500 ms (within the 550 ms patience) says 10 per 2 s: only the probes
    // went before it, and no more are sent into the window than it holds.
    Pacer pacer = builder().build(); // probes = 2
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 40);
    clock.advance(Duration.ofMillis(500));
    assertThat(granted(calls)).as("the probes only").isEqualTo(2);
    for (int i = 0; i < 2; i++) {
      calls.get(i).join().complete(200, HttpFields.of(
          "RateLimit-Policy", "\"q\";q=10;w=2", "RateLimit", "\"q\";r=8;t=2"), null);
    }
    clock.advance(Duration.ofMillis(1900)); // to just before the window the answers told ends
    assertThat(granted(calls)).as("no more sent into the window than it holds")
        .isLessThanOrEqualTo(10);
  }

  @Test
  void aFirstAnswerSlowerThanThePatienceFindsTheCallersSent() {
    // The price of not waiting longer for a server that may never answer: a first answer at
    // 600 ms (a cold client, a first TLS handshake) saying 10 per 2 s finds all 40 callers sent
    // (the doubling bound this replaced sent 4); the server refuses those past its quota.
    Pacer pacer = builder().build(); // probes = 2
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 40);
    clock.advance(Duration.ofMillis(600));
    assertThat(granted(calls)).isEqualTo(40);
  }

  @Test
  void aProbeThatEndsWithNoResponseIsAnAnswerAndTheOthersGoAtOnce() {
    // Failed before: the released probes' places went to two more probes, two at a time.
    Pacer pacer = builder().build(); // probes = 2
    List<CompletableFuture<Permit>> calls = acquireMany(pacer, 8);
    assertThat(granted(calls)).isEqualTo(2);
    clock.advance(Duration.ofMillis(100));
    calls.get(0).join().release(); // a read timeout, a refused connection: no response
    calls.get(1).join().release();
    clock.advance(Duration.ofMillis(50)); // one recheck interval
    assertThat(granted(calls)).as("the line is released, not two more probes").isEqualTo(8);
  }

  @Test
  void aPermitNeverClosedCostsTheNextCallerLittleAndShowsInTheSnapshot() throws Exception {
    Pacer pacer = builder().probes(1).build();
    Permit leaked = pacer.acquire(GET); // never completed nor released
    assertThat(leaked).isNotNull();
    assertThat(pacer.quota(API).inFlight()).isEqualTo(1);
    assertThat(pacer.quota(API).toString()).endsWith("no quota known, 1 in flight");

    CompletableFuture<Permit> next = pacer.acquireAsync(GET);
    assertThat(next).isNotDone();
    clock.advance(Duration.ofMillis(550)); // the patience before any answer
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
