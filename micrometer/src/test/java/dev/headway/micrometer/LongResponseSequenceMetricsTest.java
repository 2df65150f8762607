package dev.headway.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 10<sup>5</sup> responses of a hostile server through a pacer with the binder in the loop (a
 * new policy name, 64 new names, a rotating {@code pk}, out-of-range counts; four origins), in
 * virtual time: the meters a registry holds stay bounded, and no more in the second half than in
 * the first. A scrape (every meter read) every 1,000 responses, as a registry would.
 */
@Timeout(600)
class LongResponseSequenceMetricsTest {
  static final int RESPONSES = 100_000;
  static final int CHECK_EVERY = 1_000;
  static final String[] COUNTS = {"-1", "0", "99999999999999", "NaN",
      "1234567890123456789012345678901234567890"};

  @Test
  void aHundredThousandHostileResponsesKeepTheMetersBounded() {
    VirtualClock clock = VirtualClock.create();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    HeadwayMetrics metrics = HeadwayMetrics.create();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait()).listener(metrics)
        .build();
    metrics.monitor(pacer).bindTo(registry);
    RequestInfo[] origins = new RequestInfo[4];
    for (int o = 0; o < origins.length; o++) {
      origins[o] = RequestInfo.get(URI.create("https://h" + o + ".example.com/items"));
    }
    SplittableRandom random = new SplittableRandom(30);
    int[] most = new int[2];
    int[] gauges = new int[2];
    for (int i = 0; i < RESPONSES; i++) {
      RequestInfo request = origins[random.nextInt(origins.length)];
      Optional<Permit> permit = pacer.tryAcquire(request);
      if (permit.isEmpty()) {
        clock.advance(Duration.ofSeconds(61));
        permit = pacer.tryAcquire(request);
      }
      permit.ifPresent(p -> p.complete(200, response(random.nextInt(6), random), null));
      clock.advance(Duration.ofMillis(1));
      if (i % CHECK_EVERY == CHECK_EVERY - 1) {
        for (Meter meter : registry.getMeters()) {
          meter.measure().forEach(m -> m.getValue()); // a scrape
        }
        int half = i < RESPONSES / 2 ? 0 : 1;
        most[half] = Math.max(most[half], registry.getMeters().size());
        gauges[half] = Math.max(gauges[half], registry.find("headway.quota.remaining")
            .gauges().size() + registry.find("headway.quota.limit").gauges().size());
      }
    }
    System.out.printf("[LongResponseSequenceMetricsTest] %d responses: at most %d meters (%d"
        + " quota gauges) in the first half, %d (%d) in the second%n", RESPONSES, most[0],
        gauges[0], most[1], gauges[1]);
    assertThat(most[1]).as("meters, second half vs first").isLessThanOrEqualTo(most[0]);
    assertThat(gauges[1]).as("quota gauges, second half vs first")
        .isLessThanOrEqualTo(gauges[0]);
    // 4 origins x (16 policies x 2 gauges), plus the counters and timers of bounded tags.
    assertThat(gauges[1]).isLessThanOrEqualTo(4 * 16 * 2);
    assertThat(most[1]).isLessThan(1_000);
  }

  private static HttpFields response(int kind, SplittableRandom random) {
    int n = random.nextInt(Integer.MAX_VALUE);
    return switch (kind) {
      case 0 -> named("\"p" + n + "\"", "r=500;t=600");
      case 1 -> {
        StringBuilder policies = new StringBuilder();
        StringBuilder limits = new StringBuilder();
        for (int j = 0; j < 64; j++) {
          policies.append(j == 0 ? "" : ", ").append("\"p").append(n).append('-').append(j)
              .append("\";q=1000000;w=3600");
          limits.append(j == 0 ? "" : ", ").append("\"p").append(n).append('-').append(j)
              .append("\";r=999999;t=3600");
        }
        yield HttpFields.of("RateLimit-Policy", policies.toString(), "RateLimit",
            limits.toString());
      }
      case 2 -> {
        String pk = ";pk=:" + Base64.getEncoder().encodeToString(
            ByteBuffer.allocate(Integer.BYTES).putInt(n).array()) + ":";
        yield HttpFields.of("RateLimit-Policy", "\"u\";q=1000;w=60" + pk,
            "RateLimit", "\"u\";r=999;t=60" + pk);
      }
      case 3 -> named("\"fixed\"", "r=" + COUNTS[random.nextInt(COUNTS.length)] + ";t="
          + COUNTS[random.nextInt(COUNTS.length)]);
      case 4 -> named("\"" + "long-name-".repeat(20) + n + "\"", "r=500;t=600");
      default -> HttpFields.empty();
    };
  }

  private static HttpFields named(String name, String limit) {
    return HttpFields.of("RateLimit-Policy", name + ";q=1000;w=600", "RateLimit",
        name + ";" + limit);
  }
}
