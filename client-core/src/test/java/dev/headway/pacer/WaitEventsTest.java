package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.ClientPolicy;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.PacerEvent.Waited.Outcome;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The end of a wait (with the time actually waited) and a tryAcquire refusal are events. */
@Timeout(30)
class WaitEventsTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);
  static final String KEY = "https://api.example.com:443";

  private final VirtualClock clock = VirtualClock.create();
  private final List<PacerEvent> events = new CopyOnWriteArrayList<>();

  /** One request per 6 seconds after the first: each later one waits 6 s. */
  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .declare(ClientPolicy.tokenBucket("tb", 10, Duration.ofMinutes(1), 1, 1))
        .maxWait(Duration.ofMinutes(1)).listener(events::add).build();
  }

  private List<PacerEvent.Waited> waits() {
    return events.stream().filter(e -> e instanceof PacerEvent.Waited)
        .map(e -> (PacerEvent.Waited) e).toList();
  }

  @Test
  void aBlockingWaitReportsTheTimeActuallyWaited() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).release();
    assertThat(waits()).isEmpty(); // went at once: no wait to report
    clock.autoAdvance(true);
    pacer.acquire(GET).release();
    assertThat(waits()).containsExactly(
        new PacerEvent.Waited(KEY, Duration.ofSeconds(6),  Optional.of("tb"), Outcome.ACQUIRED));
    assertThat(events).filteredOn(e -> e instanceof PacerEvent.Delayed).hasSize(1);
    assertThat(waits().get(0)).hasToString(KEY + ": waited 6 s for policy tb, acquired");
  }

  @Test
  void anInterruptedWaitReportsTheTimeUntilTheInterrupt() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).release();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread waiter = new Thread(() -> {
      try {
        pacer.acquire(GET).release();
      } catch (Throwable e) {
        thrown.set(e);
      }
    });
    waiter.start();
    clock.awaitSleepers(1, Duration.ofSeconds(10));
    clock.advance(Duration.ofSeconds(2));
    waiter.interrupt();
    waiter.join(10_000);
    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    assertThat(waits()).containsExactly(
        new PacerEvent.Waited(KEY, Duration.ofSeconds(2),  Optional.of("tb"), Outcome.INTERRUPTED));
  }

  @Test
  void anAsyncWaitReportsItsEndWhetherAcquiredOrCancelled() throws Exception {
    Pacer pacer = pacer();
    pacer.acquire(GET).release();
    CompletableFuture<Permit> cancelled = pacer.acquireAsync(GET);
    clock.advance(Duration.ofSeconds(3));
    cancelled.cancel(false);
    assertThat(waits()).containsExactly(
        new PacerEvent.Waited(KEY, Duration.ofSeconds(3),  Optional.of("tb"), Outcome.CANCELLED));
    CompletableFuture<Permit> acquired = pacer.acquireAsync(GET);
    clock.advance(Duration.ofSeconds(2));
    assertThat(acquired).isNotDone();
    clock.advance(Duration.ofSeconds(1));
    assertThat(acquired).isCompleted();
    acquired.join().release();
    assertThat(waits()).containsExactly(
        new PacerEvent.Waited(KEY, Duration.ofSeconds(3),  Optional.of("tb"), Outcome.CANCELLED),
        new PacerEvent.Waited(KEY, Duration.ofSeconds(3),  Optional.of("tb"), Outcome.ACQUIRED));
  }

  @Test
  void aTryAcquireThatGetsNothingIsRefused() {
    Pacer pacer = pacer();
    pacer.tryAcquire(GET).orElseThrow().release();
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    assertThat(events).filteredOn(e -> e instanceof PacerEvent.Refused).containsExactly(
        new PacerEvent.Refused(KEY, Optional.of("tb")));
    assertThat(events.get(events.size() - 1)).hasToString(KEY + ": refused now by policy tb");
  }
}
