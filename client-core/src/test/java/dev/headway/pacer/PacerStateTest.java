package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PartitionKeyResolver;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaSnapshot;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Partition state: ordering, staleness, holds, partitions, hostile values, events. */
@Timeout(30)
class PacerStateTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1);
  }

  private PolicySnapshot policy(Pacer pacer, String name) {
    return pacer.quota(API).policy(name).orElseThrow();
  }

  @Test
  @Timeout(120) // a guard against a hang, not a speed bound: about 2 s on an idle machine
  void aMillionDistinctPartitionKeysStayWithinTheBound() throws Exception {
    Pacer pacer = builder().maxPartitions(1_000).build();
    int max = 0;
    for (int i = 0; i < 1_000_000; i++) {
      Permit permit = pacer.tryAcquire(GET).orElseThrow();
      permit.complete(Signals.withPk(1_000, 999, 60, "pk-" + i));
      if (i % 1_000 == 0) {
        max = Math.max(max, pacer.partitionCount());
      }
    }
    assertThat(max).isLessThanOrEqualTo(1_000);
    assertThat(pacer.partitionCount()).isLessThanOrEqualTo(1_000);
    assertThat(pacer.partitions()).hasSizeLessThanOrEqualTo(1_000);
    // The most recent partition key is still known and used.
    assertThat(pacer.quota(API).policy("peruser").orElseThrow().remaining())
        .isEqualTo(OptionalLong.of(999));
  }

  @Test
  void aServerPartitionKeySplitsThePartition() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(Signals.withPk(10, 0, 30, "user-a"));
    assertThat(pacer.tryAcquire(GET)).isEmpty(); // user-a spent
    assertThat(pacer.partitions()).extracting(QuotaSnapshot::partition)
        .containsExactly("https://api.example.com:443", "https://api.example.com:443|pk=user-a");
  }

  @Test
  void aLateResponseFromBeforeAResetDoesNotResurrectTheOldValue() throws Exception {
    Pacer pacer = builder().strategy(dev.headway.PacingStrategy.useAllThenWait()).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 10, 5, 10));
    Permit slow = pacer.acquire(GET); // sent in the first window; its response comes late
    clock.advance(Duration.ofSeconds(11)); // the window reset: 10 are back
    Permit fresh = pacer.acquire(GET);
    fresh.complete(Signals.limit(200, 10, 10, 9, 9));
    slow.complete(Signals.limit(200, 10, 10, 0, 1)); // the old window's "0 left"

    assertThat(policy(pacer, "default").remaining()).isEqualTo(OptionalLong.of(9));
    assertThat(pacer.tryAcquire(GET)).isPresent();
  }

  @Test
  void anOlderResponseInTheSameWindowDoesNotOverwriteANewerOne() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 50, 60));
    Permit first = pacer.acquire(GET);
    Permit second = pacer.acquire(GET);
    second.complete(Signals.limit(200, 100, 60, 40, 60));
    first.complete(Signals.limit(200, 100, 60, 48, 60));
    assertThat(policy(pacer, "default").remaining()).isEqualTo(OptionalLong.of(40));
  }

  @Test
  void permitsInFlightCountAgainstTheRemainingUnits() throws Exception {
    Pacer pacer = builder().strategy(dev.headway.PacingStrategy.useAllThenWait()).build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 2, 60));
    Permit a = pacer.tryAcquire(GET).orElseThrow();
    Permit b = pacer.tryAcquire(GET).orElseThrow();
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    assertThat(policy(pacer, "default").inFlight()).isEqualTo(2);
    a.release(); // never sent: the unit is back
    assertThat(pacer.tryAcquire(GET)).isPresent();
    b.close();
  }

  @Test
  void afterAResetTheKnownQuotaIsAssumedBack() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 0, 20));
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(20));
    assertThat(policy(pacer, "default").remaining()).isEqualTo(OptionalLong.of(100));
    assertThat(policy(pacer, "default").timeToReset()).contains(Duration.ofSeconds(60));
    assertThat(pacer.tryAcquire(GET)).isPresent();
  }

  @Test
  void staleStateWithUnknownQuotaLetsAFewProbesThroughThenLearns() throws Exception {
    Pacer pacer = builder().probes(2).maxWait(Duration.ofMinutes(1)).build();
    pacer.acquire(GET).complete(Signals.remainingOnly(200, 0, Optional.of(Duration.ofSeconds(10))));
    List<CompletableFuture<Permit>> waiting = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      waiting.add(pacer.acquireAsync(GET));
    }
    clock.advance(Duration.ofSeconds(12)); // past the reset (and its jitter): stale
    List<Permit> probes = new ArrayList<>();
    waiting.stream().filter(CompletableFuture::isDone).forEach(f -> probes.add(f.join()));
    assertThat(probes).as("probes, not a stampede").hasSize(2);

    clock.advance(Duration.ofSeconds(1));
    assertThat(waiting.stream().filter(CompletableFuture::isDone).count()).isEqualTo(2);

    probes.get(0).complete(Signals.remainingOnly(200, 50, Optional.of(Duration.ofSeconds(60))));
    clock.advance(Duration.ofMillis(100)); // the others look again
    assertThat(waiting).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
  }

  @Test
  void aThrottledResponseHoldsBackTheWholePartitionUntilTheAdvisedTime() throws Exception {
    Pacer pacer = builder().maxJitter(Duration.ZERO).build();
    Permit permit = pacer.acquire(GET);
    permit.complete(Signals.throttled(429, Optional.of(Duration.ofSeconds(20)), List.of(),
        Optional.empty()));
    RequestInfo other = RequestInfo.get(URI.create("https://api.example.com/other"));
    assertThat(pacer.tryAcquire(other)).isEmpty();
    assertThat(pacer.quota(API).heldFor()).contains(Duration.ofSeconds(20));
    assertThatThrownBy(() -> pacer.acquire(other, Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(RateLimitedException.class, e -> {
          assertThat(e.policy()).contains("throttled");
          assertThat(e.requiredWait()).isEqualTo(Duration.ofSeconds(20));
        });
    CompletableFuture<Permit> later = pacer.acquireAsync(other);
    clock.advance(Duration.ofSeconds(19));
    assertThat(later).isNotDone();
    clock.advance(Duration.ofSeconds(1));
    assertThat(later).isCompleted();
  }

  @Test
  void aThrottledResponseArrivingWhileOthersWaitPushesThemBack() throws Exception {
    Pacer pacer = builder().maxJitter(Duration.ZERO).maxWait(Duration.ofMinutes(1))
        .strategy(dev.headway.PacingStrategy.spread()).build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 3, 30));
    Permit inFlight = pacer.acquire(GET);
    CompletableFuture<Permit> waiting = pacer.acquireAsync(GET); // committed ~10 s out
    assertThat(waiting).isNotDone();
    inFlight.complete(Signals.throttled(429, Optional.of(Duration.ofSeconds(40)), List.of(),
        Optional.empty()));
    clock.advance(Duration.ofSeconds(39));
    assertThat(waiting).isNotDone();
    clock.advance(Duration.ofSeconds(2));
    assertThat(waiting).isCompleted();
  }

  @Test
  void hostileValuesNeverMakeACallWaitPastMaxWait() throws Exception {
    Pacer pacer = builder().maxWait(Duration.ofSeconds(30)).build();
    Duration tenYears = Duration.ofDays(3650);
    pacer.acquire(GET).complete(Signals.remainingOnly(200, 0, Optional.of(tenYears)));
    // A reset past maxReset is not believed: the spent count is paced as one sent without a
    // reset (probed). Either way the call neither waits nor is told to wait past a day.
    try {
      pacer.acquire(GET).release();
    } catch (RateLimitedException e) {
      assertThat(e.requiredWait()).isLessThanOrEqualTo(Duration.ofDays(1).plusSeconds(1));
    }
    assertThat(clock.elapsed()).isZero();
    assertThat(clock.sleepers()).isZero();

    Pacer retryAfter = builder().maxWait(Duration.ofSeconds(30)).build();
    retryAfter.acquire(GET).complete(Signals.throttled(429, Optional.of(tenYears), List.of(),
        Optional.empty()));
    assertThatThrownBy(() -> retryAfter.acquire(GET)).isInstanceOf(RateLimitedException.class);
    assertThat(retryAfter.retryDelay(GET, Signals.throttled(429, Optional.of(tenYears),
        List.of(), Optional.empty()), 1)).isEmpty();
    assertThat(clock.elapsed()).isZero();

    Pacer huge = builder().build();
    huge.acquire(GET).complete(Signals.remainingOnly(200, Long.MAX_VALUE,
        Optional.of(Duration.ofSeconds(Long.MAX_VALUE / 2))));
    for (int i = 0; i < 1_000; i++) {
      huge.acquire(GET).release();
    }
    assertThat(clock.elapsed()).isZero();
    assertThat(huge.quota(API).policy("default").orElseThrow().remaining().getAsLong())
        .isLessThanOrEqualTo(1_000_000_000_000L);
  }

  @Test
  void aThrowingListenerNeverBreaksARequest() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Pacer pacer = builder().maxWait(Duration.ofSeconds(5)).listener(e -> {
      calls.incrementAndGet();
      throw new IllegalStateException("listener bug");
    }).build();
    Permit permit = pacer.acquire(GET);
    permit.complete(Signals.limit(200, 10, 60, 0, 30));
    assertThatThrownBy(() -> pacer.acquire(GET)).isInstanceOf(RateLimitedException.class);
    clock.autoAdvance(true);
    pacer.acquire(GET, Duration.ofMinutes(1)); // delayed, then granted
    assertThat(calls.get()).isGreaterThanOrEqualTo(3);
  }

  @Test
  void eventsReportDelaysRejectionsThrottlingAndUpdates() throws Exception {
    List<PacerEvent> events = new CopyOnWriteArrayList<>();
    clock.autoAdvance(true);
    Pacer pacer = builder().listener(events::add).maxJitter(Duration.ZERO)
        .maxWait(Duration.ofSeconds(10)).build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 60, 0, 5));
    pacer.acquire(GET).complete(Signals.throttled(429, Optional.of(Duration.ofSeconds(30)),
        List.of(), Optional.empty()));
    assertThatThrownBy(() -> pacer.acquire(GET)).isInstanceOf(RateLimitedException.class);
    assertThat(events).hasAtLeastOneElementOfType(PacerEvent.QuotaUpdated.class)
        .hasAtLeastOneElementOfType(PacerEvent.Delayed.class)
        .hasAtLeastOneElementOfType(PacerEvent.Throttled.class)
        .hasAtLeastOneElementOfType(PacerEvent.Rejected.class);
    PacerEvent.Delayed delayed = (PacerEvent.Delayed) events.stream()
        .filter(e -> e instanceof PacerEvent.Delayed).findFirst().orElseThrow();
    assertThat(delayed.delay()).isEqualTo(Duration.ofSeconds(5));
    assertThat(delayed.policy()).contains("default");
  }

  @Test
  void aConcurrencyCapHoldsThePermitUntilTheResponseCompletes() throws Exception {
    Pacer pacer = builder().recheckInterval(Duration.ofMillis(10)).build();
    RateLimitSignal cap = new RateLimitSignal(200,
        List.of(new QuotaPolicy("conc", 2, QuotaUnit.CONCURRENT_REQUESTS, Optional.empty(),
            Optional.empty(), "ietf")),
        List.of(), Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of(),
        List.of(), false);
    pacer.acquire(GET).complete(cap);
    Permit a = pacer.tryAcquire(GET).orElseThrow();
    Permit b = pacer.tryAcquire(GET).orElseThrow();
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    CompletableFuture<Permit> third = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(50));
    assertThat(third).isNotDone();
    a.complete(cap);
    clock.advance(Duration.ofMillis(10));
    assertThat(third).isCompleted();
    b.release();
  }

  @Test
  void contentBytesQuotasAreChargedTheBodyLengthAndACostAboveTheQuotaIsClamped()
      throws Exception {
    Pacer pacer = builder().maxWait(Duration.ofMinutes(2)).build();
    RateLimitSignal bytes = new RateLimitSignal(200,
        List.of(new QuotaPolicy("bytes", 1_000, QuotaUnit.CONTENT_BYTES,
            Optional.of(Duration.ofSeconds(10)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("bytes", 1_000, Optional.of(Duration.ofSeconds(10)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of(), List.of(),
        false);
    pacer.acquire(GET).complete(bytes);
    RequestInfo post600 = new RequestInfo("POST", API, HttpFields.empty(), OptionalLong.of(600));
    Permit first = pacer.tryAcquire(post600).orElseThrow();
    assertThat(pacer.tryAcquire(post600)).as("600 + 600 > 1000 bytes").isEmpty();
    first.release();
    RequestInfo huge = new RequestInfo("POST", API, HttpFields.empty(), OptionalLong.of(5_000));
    assertThat(pacer.tryAcquire(huge)).as("clamped to the quota: it goes alone").isPresent();
  }

  @Test
  void partitionResolversKeyByPathPrefixAndHashedCredential() {
    RequestInfo search = RequestInfo.get(URI.create("https://API.example.com/v1/search/code?q=1"));
    assertThat(PartitionKeyResolver.originAndPathPrefix(2).resolve(search))
        .isEqualTo("https://api.example.com:443/v1/search");
    assertThat(PartitionKeyResolver.origin().resolve(search))
        .isEqualTo("https://api.example.com:443");

    PartitionKeyResolver byCredential = PartitionKeyResolver.originAndCredential("Authorization");
    RequestInfo alice = new RequestInfo("GET", API,
        HttpFields.of("Authorization", "Bearer alice-secret"), OptionalLong.empty());
    RequestInfo bob = new RequestInfo("GET", API,
        HttpFields.of("Authorization", "Bearer bob-secret"), OptionalLong.empty());
    String a = byCredential.resolve(alice);
    assertThat(a).startsWith("https://api.example.com:443#cred=").doesNotContain("alice");
    assertThat(byCredential.resolve(alice)).isEqualTo(a);
    assertThat(byCredential.resolve(bob)).isNotEqualTo(a);
  }

  @Test
  void configurationErrorsNameTheFieldAndValue() {
    assertThatThrownBy(() -> Pacer.builder().maxWait(Duration.ofSeconds(-1)))
        .hasMessage("maxWait must be positive but was PT-1S");
    assertThatThrownBy(() -> Pacer.builder().maxPartitions(0))
        .hasMessage("maxPartitions must be at least 1 but was 0");
    assertThatThrownBy(() -> Pacer.builder().probes(0))
        .hasMessage("probes must be at least 1 but was 0");
    assertThatThrownBy(() -> Pacer.builder().maxJitter(Duration.ofMillis(-5)))
        .hasMessage("maxJitter must not be negative but was PT-0.005S");
    assertThatThrownBy(() -> Pacer.builder().recheckInterval(Duration.ZERO))
        .hasMessage("recheckInterval must be positive but was PT0S");
    assertThatThrownBy(() -> Pacer.builder().baseBackoff(Duration.ofSeconds(10))
        .maxBackoff(Duration.ofSeconds(1)).build())
        .hasMessage("maxBackoff must be at least baseBackoff (PT10S) but was PT1S");
    assertThatThrownBy(() -> dev.headway.PacingStrategy.burstThenSpread(1.5))
        .hasMessage("lowWaterFraction must be in [0, 1] but was 1.5");
    assertThatThrownBy(() -> Pacer.create().acquire(GET, Duration.ofSeconds(-2)))
        .hasMessage("maxWait must not be negative but was PT-2S");
    assertThatThrownBy(() -> Pacer.builder().strategy(null))
        .isInstanceOf(NullPointerException.class).hasMessage("strategy must not be null");
  }
}
