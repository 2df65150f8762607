package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.SharedQuota;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import dev.headway.testing.store.ForwardingQuotaStore;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store whose calls throw an {@link Error} instead of returning a failed stage (built against
 * another version of its Redis client: a class missing at run time) is a store that does not
 * answer: the pacer paces locally, as without a store, and logs the outage; no request fails or
 * waits for an answer that cannot come. One pacer, 4 closed-loop callers (maxWait 3 s), a server
 * of 30 requests per 2 s 5 ms away, 20 s. Virtual time.
 */
@Timeout(60)
class FleetThrowingStoreTest {
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long RUN_NANOS = 20_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private final QuotaServer server = new QuotaServer(clock, 30, Duration.ofSeconds(2));
  private int failed;
  private long longestWaitNanos;

  @BeforeEach
  void forgetLogs() {
    CapturedLogs.clear();
  }

  private void loop(Pacer pacer) {
    if (clock.read() >= RUN_NANOS) {
      return;
    }
    long asked = clock.read();
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      longestWaitNanos = Math.max(longestWaitNanos, clock.read() - asked);
      if (error != null) {
        failed++;
        clock.schedule(() -> loop(pacer), Duration.ofMillis(10));
        return;
      }
      RateLimitSignal answer = server.handle("p");
      clock.schedule(() -> {
        permit.complete(answer);
        loop(pacer);
      }, Duration.ofMillis(10));
    });
  }

  private void run(QuotaStore store) {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .maxWait(Duration.ofSeconds(3)).jitterSeed(1).store(store).build();
    for (int c = 0; c < 4; c++) {
      loop(pacer);
    }
    clock.advance(Duration.ofNanos(RUN_NANOS + 5_000_000_000L));
  }

  /**
   * Before, the lease call's error went up through the first caller's acquire (failed:
   * "Headway failed while deciding when this request may be sent"), and the lease it left
   * marked in flight held every later caller until it counted as stuck (2 s), again at each
   * retry: 8 failed acquires and 274 admitted in 20 s.
   */
  @Test
  void aStoreWhoseLeaseThrowsAnErrorIsAStoreThatDoesNotAnswer() {
    InMemoryQuotaStore memory = InMemoryQuotaStore.builder().clock(clock)
        .roundTrip(Duration.ofMillis(1), clock).build();
    run(new ForwardingQuotaStore(memory.instance("p")) {
      @Override
      public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
        throw new NoClassDefFoundError("io/lettuce/core/api/StatefulRedisConnection");
      }

      @Override
      public CompletionStage<SharedQuota> read(QuotaKey key) {
        throw new NoClassDefFoundError("io/lettuce/core/api/StatefulRedisConnection");
      }
    });
    assertThat(failed).as("failed acquires (%d admitted, %d 429s)", server.count(200),
        server.count(429)).isZero();
    assertThat(longestWaitNanos).as("longest wait").isLessThanOrEqualTo(3_000_000_000L);
    // 10 windows of 30: as without a store.
    assertThat(server.count(200)).as("admitted").isGreaterThanOrEqualTo(290);
    assertThat(server.count(429)).as("429s").isZero();
    List<CapturedLogs.Line> warnings = CapturedLogs.lines("dev.headway.store").stream()
        .filter(l -> l.level() == Level.WARNING).toList();
    assertThat(warnings).as("%s", warnings).hasSize(1);
    assertThat(warnings.get(0).message()).contains("NoClassDefFoundError");
  }
}
