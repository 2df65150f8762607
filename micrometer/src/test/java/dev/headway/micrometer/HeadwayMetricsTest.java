package dev.headway.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.RetryBudget;
import dev.headway.testing.VirtualClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Drives a Pacer on the virtual clock and reads what a SimpleMeterRegistry shows. */
@Timeout(30)
class HeadwayMetricsTest {
  static final String API = "https://api.example.com:443";
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private Pacer pacer(HeadwayMetrics metrics) {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).listener(metrics).build();
    metrics.monitor(pacer).bindTo(registry);
    return pacer;
  }

  private static HttpFields quota(String policy, long limit, long remaining, long reset) {
    return HttpFields.of("RateLimit-Policy", "\"" + policy + "\";q=" + limit + ";w=60",
        "RateLimit", "\"" + policy + "\";r=" + remaining + ";t=" + reset);
  }

  private double gauge(String name, String partition, String policy) {
    Gauge gauge = registry.find(name).tags("partition", partition, "policy", policy).gauge();
    assertThat(gauge).as(name + " for " + partition + "/" + policy).isNotNull();
    return gauge.value();
  }

  @Test
  void quotaGaugesFollowThePacersSnapshots() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    Pacer pacer = pacer(metrics);
    assertThat(registry.find("headway.quota.remaining").gauges()).isEmpty();

    pacer.acquire(GET).complete(200, quota("fixed", 10, 3, 60), null);

    assertThat(gauge("headway.quota.remaining", API, "fixed")).isEqualTo(3);
    assertThat(gauge("headway.quota.limit", API, "fixed")).isEqualTo(10);
    assertThat(registry.find("headway.quota.remaining").tag("unit", "requests").gauge()
        .getId().getBaseUnit()).isEqualTo("requests");

    // A permit in flight lowers the estimate; no event says so, so the gauge sees it once the
    // refresh interval (1 s of the pacer's ticker) has passed.
    Permit inFlight = pacer.acquire(GET);
    assertThat(gauge("headway.quota.remaining", API, "fixed")).isEqualTo(3);
    clock.advance(Duration.ofSeconds(1));
    assertThat(gauge("headway.quota.remaining", API, "fixed")).isEqualTo(2);
    inFlight.complete(200, quota("fixed", 10, 1, 59), null);
    assertThat(gauge("headway.quota.remaining", API, "fixed")).isEqualTo(1);
  }

  @Test
  void waitsRefusalsThrottlesAndRetriesAreCounted() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    Pacer pacer = pacer(metrics);
    clock.autoAdvance(true);

    // Spent, reset in 2 s: the next request waits about 2 s.
    pacer.acquire(GET).complete(200, quota("fixed", 10, 0, 2), null);
    pacer.acquire(GET).complete(200, quota("fixed", 10, 0, 60), null);
    Timer waits = registry.find("headway.pacer.wait")
        .tags("partition", API, "policy", "fixed", "outcome", "acquired").timer();
    assertThat(waits).isNotNull();
    assertThat(waits.count()).isEqualTo(1);
    assertThat(waits.totalTime(TimeUnit.MILLISECONDS)).isBetween(2_000.0, 3_000.0);

    // Spent for 60 s, past maxWait: refused at once.
    assertThatThrownBy(() -> pacer.acquire(GET)).isInstanceOf(RateLimitedException.class);
    assertThat(registry.find("headway.pacer.rejections")
        .tags("partition", API, "policy", "fixed").counter().count()).isEqualTo(1);
    assertThat(waits.count()).isEqualTo(1);

    // A 429 with Retry-After, and the retry the pacer advises after it.
    RequestInfo other = RequestInfo.get(URI.create("https://other.example.com/x"));
    RateLimitSignal throttled = pacer.acquire(other)
        .complete(429, HttpFields.of("Retry-After", "5"), null);
    assertThat(registry.find("headway.pacer.throttled")
        .tags("partition", "https://other.example.com:443", "status", "429").counter().count())
        .isEqualTo(1);
    assertThat(pacer.retryDelay(other, throttled, 1)).isPresent();
    assertThat(registry.find("headway.pacer.retries")
        .tags("partition", "https://other.example.com:443").counter().count()).isEqualTo(1);
  }

  @Test
  void retriesTheRetryBudgetRefusesAreCounted() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).retryBudget(new RetryBudget(1, 0.1)).listener(metrics).build();
    metrics.monitor(pacer).bindTo(registry);
    RateLimitSignal unavailable = pacer.acquire(GET)
        .complete(503, HttpFields.of("Retry-After", "1"), null);

    assertThat(pacer.retryDelay(GET, unavailable, 1)).isPresent();
    assertThat(pacer.retryDelay(GET, unavailable, 1)).isEmpty();

    assertThat(registry.find("headway.pacer.retries.refused")
        .tags("partition", API, "status", "503").counter().count()).isEqualTo(1);
  }

  @Test
  void partitionsPastTheBoundShareOneTagAndGetNoGauges() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.builder().maxPartitions(1)
        .tags(Tags.of("client", "test")).build();
    Pacer pacer = pacer(metrics);
    clock.autoAdvance(true); // each 429 holds its partition for 1 s
    for (String host : new String[] {"a", "b", "c"}) {
      RequestInfo request = RequestInfo.get(URI.create("https://" + host + ".example.com/"));
      pacer.acquire(request).complete(429, HttpFields.of("Retry-After", "1"), null);
      pacer.acquire(request).complete(200, quota("fixed", 10, 9, 60), null);
    }
    assertThat(registry.find("headway.pacer.throttled").counters())
        .extracting(c -> c.getId().getTag("partition") + "=" + c.count())
        .containsExactlyInAnyOrder("https://a.example.com:443=1.0", "other=2.0");
    assertThat(registry.find("headway.quota.remaining").gauges())
        .extracting(g -> g.getId().getTag("partition"))
        .containsExactly("https://a.example.com:443");
    assertThat(registry.getMeters()).allSatisfy(
        m -> assertThat(m.getId().getTag("client")).isEqualTo("test"));
  }

  @Test
  void aRegistryBoundLaterGetsTheKnownGauges() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    Pacer pacer = pacer(metrics);
    pacer.acquire(GET).complete(200, quota("fixed", 10, 7, 60), null);

    SimpleMeterRegistry later = new SimpleMeterRegistry();
    metrics.bindTo(later);
    assertThat(later.find("headway.quota.remaining").tags("partition", API).gauge().value())
        .isEqualTo(7);
    assertThatThrownBy(() -> metrics.monitor(Pacer.create()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("one HeadwayMetrics per");
  }

  @Test
  void withoutAMonitoredPacerGaugesReadNaNAndEventsStillCount() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    metrics.bindTo(registry);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .listener(metrics).build();
    pacer.acquire(GET).complete(200, quota("fixed", 10, 7, 60), null);
    pacer.acquire(GET).complete(429, HttpFields.of("Retry-After", "1"), null);
    assertThat(gauge("headway.quota.remaining", API, "fixed")).isNaN();
    assertThat(registry.find("headway.pacer.throttled").counter().count()).isEqualTo(1);
  }

  @Test
  void theWaitTimerRecordsTheTimeActuallyWaitedAndRefusalsAreCounted() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    Pacer pacer = pacer(metrics);
    // Spent, reset in 8 s: a wait is planned for 8 s and cancelled after 3 s.
    pacer.acquire(GET).complete(200, quota("fixed", 10, 0, 8), null);
    java.util.concurrent.CompletableFuture<dev.headway.Permit> waiting = pacer.acquireAsync(GET);
    clock.advance(Duration.ofSeconds(3));
    waiting.cancel(false);
    Timer cancelled = registry.find("headway.pacer.wait")
        .tags("partition", API, "policy", "fixed", "outcome", "cancelled").timer();
    assertThat(cancelled).isNotNull();
    assertThat(cancelled.count()).isEqualTo(1);
    assertThat(cancelled.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(3_000.0);
    assertThat(registry.find("headway.pacer.wait").tags("outcome", "acquired").timer()).isNull();

    assertThat(pacer.tryAcquire(GET)).isEmpty();
    assertThat(registry.find("headway.pacer.refusals")
        .tags("partition", API, "policy", "fixed").counter().count()).isEqualTo(1);
  }
}
