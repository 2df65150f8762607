package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.SignalParser;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every permit is given back, however the code holding it goes wrong. */
@Timeout(30)
class PermitReclaimTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);

  private final VirtualClock clock = VirtualClock.create();
  private final List<PacerEvent> events = new CopyOnWriteArrayList<>();

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxJitter(Duration.ZERO).listener(events::add);
  }

  private long inFlight(Pacer pacer) {
    return pacer.quota(API).policy("default").orElseThrow().inFlight();
  }

  /** A pacer with one async waiter committed for 1.25 s from now. */
  private CompletableFuture<Permit> waiter(Pacer pacer) throws Exception {
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 25, 30));
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 24, 30));
    CompletableFuture<Permit> future = pacer.acquireAsync(GET);
    assertThat(future).isNotDone();
    assertThat(inFlight(pacer)).isEqualTo(1);
    return future;
  }

  private void completedBySomeoneElse(Consumer<CompletableFuture<Permit>> how) throws Exception {
    Pacer pacer = builder().strategy(PacingStrategy.spread()).build();
    CompletableFuture<Permit> future = waiter(pacer);
    how.accept(future);
    assertThat(future).succeedsWithin(Duration.ofSeconds(5)).isNull();
    assertThat(inFlight(pacer)).as("units of a permit nobody got").isZero();
    clock.advance(Duration.ofSeconds(2));
    assertThat(inFlight(pacer)).isZero();
    assertThat(future.getNow(null)).isNull();
  }

  @Test
  void aFutureCompletedWithAnotherValueGivesThePermitBack() throws Exception {
    completedBySomeoneElse(f -> f.complete(null));
  }

  @Test
  void completeOnTimeoutGivesThePermitBack() throws Exception {
    // completeOnTimeout's own timer runs in real time: the assertion waits (really) for it.
    completedBySomeoneElse(f -> f.completeOnTimeout(null, 1, TimeUnit.MILLISECONDS));
  }

  @Test
  void obtrudeValueGivesThePermitBack() throws Exception {
    completedBySomeoneElse(f -> f.obtrudeValue(null));
  }

  @Test
  void lostPermitsAreReclaimedWhenTheirLeaseExpires() throws Exception {
    Pacer pacer = builder().permitLease(Duration.ofSeconds(10)).maxWait(Duration.ofSeconds(2))
        .build();
    pacer.acquire(GET).complete(Signals.limit(200, 10, 1, 10, 1));
    pacer.acquire(GET); // lost: never completed nor released
    pacer.acquire(GET); // lost too
    clock.advance(Duration.ofSeconds(2));
    // A new window, and the two lost permits still count as the probes that must answer first.
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    assertThat(events).noneMatch(e -> e instanceof PacerEvent.PermitExpired);

    clock.advance(Duration.ofSeconds(8)); // 10 s after they were taken
    Permit permit = pacer.tryAcquire(GET).orElseThrow();
    assertThat(events).filteredOn(e -> e instanceof PacerEvent.PermitExpired)
        .hasSize(2)
        .allSatisfy(e -> assertThat(((PacerEvent.PermitExpired) e).heldFor())
            .isEqualTo(Duration.ofSeconds(10)));
    assertThat(inFlight(pacer)).isEqualTo(1);
    permit.release();
    assertThat(inFlight(pacer)).isZero();
  }

  @Test
  void theLeaseDefaultsToFiveMinutesOrTwiceMaxWait() {
    assertThat(Pacer.create().permitLease()).isEqualTo(Duration.ofMinutes(5));
    assertThat(Pacer.builder().maxWait(Duration.ofMinutes(10)).build().permitLease())
        .isEqualTo(Duration.ofMinutes(20));
    assertThatThrownBy(() -> Pacer.builder().permitLease(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("permitLease must be positive but was PT0S");
  }

  @Test
  void aLinkageErrorWhileParsingNeverKeepsThePermit() throws Exception {
    SignalParser broken = SignalParser.builder().addDialect(new dev.headway.dialect.Dialect() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public void read(dev.headway.dialect.DialectContext context,
          dev.headway.dialect.SignalSink sink) {
        throw new NoClassDefFoundError("com/fasterxml/jackson/core/StreamReadConstraints");
      }
    }).build();
    Pacer pacer = builder().signalParser(broken).build();
    pacer.acquire(GET).complete(Signals.limit(200, 1, 60, 1, 60));
    Permit permit = pacer.acquire(GET);
    assertThat(inFlight(pacer)).isEqualTo(1);
    RateLimitSignal signal = permit.complete(200,
        HttpFields.of("RateLimit", "\"default\";r=0;t=60"), null);
    assertThat(signal.throttled()).isFalse();
    assertThat(inFlight(pacer)).isZero();
  }

  @Test
  void aSchedulerThatThrowsNeverKeepsThePermit() throws Exception {
    Scheduler failing = new Scheduler() {
      @Override
      public void sleep(Duration delay) {
        throw new IllegalStateException("scheduler shut down");
      }

      @Override
      public Future<?> schedule(Runnable task, Duration delay) {
        throw new IllegalStateException("scheduler shut down");
      }
    };
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(failing)
        .strategy(PacingStrategy.spread()).jitter(Jitter.none()).build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 25, 30));
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 24, 30));
    assertThatThrownBy(() -> pacer.acquire(GET)).hasMessage("scheduler shut down");
    assertThat(inFlight(pacer)).isZero();
    CompletableFuture<Permit> async = pacer.acquireAsync(GET);
    assertThat(async).failsWithin(Duration.ofSeconds(1));
    assertThat(inFlight(pacer)).isZero();
  }
}
