package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import dev.headway.testing.store.StoreFaults;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A logging backend that throws while the store fails or comes back (a broken appender, a full
 * disk) breaks no call: the outage's WARNING and the recovery's INFO are attempted, and every
 * call still gets its permit. One pacer, 4 closed-loop callers, a server of 30 requests per 2 s
 * 5 ms away, the store 1 ms away and down from 5 s to 8 s. Virtual time.
 */
@Timeout(60)
class FleetLoggingBackendThrowsTest {
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();
  private final StoreFaults faults = new StoreFaults();
  private final QuotaServer server = new QuotaServer(clock, 30, Duration.ofSeconds(2));
  private final AtomicInteger granted = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private long runNanos;

  private void loop(Pacer pacer) {
    if (clock.read() >= runNanos || failure.get() != null) {
      return;
    }
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        failure.compareAndSet(null, error);
        return;
      }
      granted.incrementAndGet();
      RateLimitSignal answer = server.handle("p");
      clock.schedule(() -> {
        try {
          permit.complete(answer);
        } catch (RuntimeException e) {
          failure.compareAndSet(null, e);
        }
        loop(pacer);
      }, Duration.ofMillis(5));
    });
  }

  @Test
  void aThrowingLoggerBreaksNoCallWhileTheStoreFailsAndComesBack() throws Exception {
    CapturedLogs.clear();
    runNanos = 20_000_000_000L;
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .maxWait(Duration.ofSeconds(3)).jitterSeed(1).store(faults.wrap(store.instance("p")))
        .build();
    try (AutoCloseable broken = CapturedLogs.failing("dev.headway.store",
        new IllegalStateException("appender broken"))) {
      for (int c = 0; c < 4; c++) {
        loop(pacer);
      }
      clock.schedule(() -> faults.unavailable(true), Duration.ofSeconds(5));
      clock.schedule(() -> faults.unavailable(false), Duration.ofSeconds(8));
      clock.advance(Duration.ofSeconds(25));
    }
    assertThat(failure.get()).as("a call or a completion failed").isNull();
    assertThat(CapturedLogs.lines("dev.headway.store")).as("the outage was logged (and threw)")
        .anyMatch(l -> l.message().startsWith("Quota store did not answer"))
        .anyMatch(l -> l.message().startsWith("Quota store answers again"));
    // 30 per 2 s for 20 s: every window's quota, nothing lost to the broken logger
    assertThat(granted.get()).isGreaterThanOrEqualTo(270);
  }
}
