package dev.headway.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A registry that throws when asked to register a meter (a {@code MeterFilter} of the
 * application's that throws, a meter of another type already under the name): it loses its own
 * meters, and nothing else. Before, it stood first in the list of registries and every other
 * registry got no meter at all: counters, timers and quota gauges were all missing.
 */
@Timeout(30)
class ThrowingRegistryTest {
  static final String API = "https://api.example.com:443";
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  private static HttpFields quota(String policy, long limit, long remaining, long reset) {
    return HttpFields.of("RateLimit-Policy", "\"" + policy + "\";q=" + limit + ";w=60",
        "RateLimit", "\"" + policy + "\";r=" + remaining + ";t=" + reset);
  }

  /** A registry whose filter throws on every meter it is asked to register. */
  private static SimpleMeterRegistry throwing() {
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    r.config().meterFilter(new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        throw new IllegalStateException("this registry is broken");
      }
    });
    return r;
  }

  private Pacer pacer(HeadwayMetrics metrics) {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).listener(metrics).build();
  }

  private static double remaining(MeterRegistry registry, String policy) {
    return registry.get("headway.quota.remaining").tags("partition", API, "policy", policy)
        .gauge().value();
  }

  /** What the pacer itself says is left of {@code policy}. */
  private static double remaining(Pacer pacer, String policy) {
    return pacer.quota(URI.create(API)).policies().stream()
        .filter(p -> p.name().equals(policy)).findFirst().orElseThrow()
        .remaining().orElseThrow();
  }

  @Test
  void aRegistryThatThrowsLeavesTheOtherRegistriesEveryMeter() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    Pacer pacer = pacer(metrics);
    metrics.monitor(pacer);
    SimpleMeterRegistry broken = throwing();
    SimpleMeterRegistry good = new SimpleMeterRegistry();
    assertThatCode(() -> metrics.bindTo(broken)).doesNotThrowAnyException();
    metrics.bindTo(good);

    pacer.acquire(GET).complete(200, quota("fixed", 10, 3, 60), null);
    pacer.acquire(GET).complete(429, HttpFields.of("Retry-After", "1"), null);
    try {
      pacer.acquire(GET, Duration.ZERO).release();
    } catch (RateLimitedException refused) {
      // held by the 429: counted as a rejection
    }
    var waited = pacer.acquireAsync(GET, Duration.ofSeconds(5)); // waits out the hold: timed
    clock.advance(Duration.ofSeconds(3));
    waited.join().release();

    assertThat(remaining(good, "fixed")).isEqualTo(remaining(pacer, "fixed"));
    assertThat(good.get("headway.quota.limit").tags("policy", "fixed").gauge().value())
        .isEqualTo(10);
    assertThat(good.get("headway.pacer.throttled").tags("status", "429").counter().count())
        .isEqualTo(1);
    assertThat(good.get("headway.pacer.rejections").counter().count()).isEqualTo(1);
    assertThat(good.get("headway.pacer.wait").timer().count()).isEqualTo(1);
    assertThat(broken.getMeters()).isEmpty();
  }

  @Test
  void bindingARegistryThatThrowsToMetricsWithGaugesDoesNotThrowAndTheGaugesReachTheNext()
      throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    Pacer pacer = pacer(metrics);
    metrics.monitor(pacer);
    pacer.acquire(GET).complete(200, quota("fixed", 10, 7, 60), null);
    pacer.acquire(GET).complete(200, quota("hourly", 100, 70, 600), null);

    assertThatCode(() -> metrics.bindTo(throwing())).doesNotThrowAnyException();
    SimpleMeterRegistry good = new SimpleMeterRegistry();
    metrics.bindTo(good);
    assertThat(remaining(good, "fixed")).isEqualTo(remaining(pacer, "fixed"));
    assertThat(remaining(good, "hourly")).isEqualTo(70);

    // Gauges of a policy seen after both were bound reach the good one too.
    pacer.acquire(GET).complete(200, quota("daily", 1000, 700, 6000), null);
    assertThat(remaining(good, "daily")).isEqualTo(remaining(pacer, "daily"));
  }

  @Test
  void aRefreshIntervalOfCenturiesIsAcceptedAsNeverRefreshingWithoutAnEvent() {
    assertThatCode(() -> HeadwayMetrics.builder()
        .refreshInterval(Duration.ofSeconds(Long.MAX_VALUE)).build())
        .doesNotThrowAnyException();
  }
}
