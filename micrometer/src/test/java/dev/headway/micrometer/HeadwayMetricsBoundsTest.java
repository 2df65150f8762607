package dev.headway.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.PacerListener;
import dev.headway.PartitionKeyResolver;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a hostile server, or a partition key with a secret in it, does to the meters a user's
 * registry holds: responses go through a real Pacer on the virtual clock, and the test counts and
 * reads the meters of a SimpleMeterRegistry.
 */
@Timeout(300)
class HeadwayMetricsBoundsTest {
  static final String API = "https://api.example.com:443";
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  /** What a partition tag may read when it is not an origin: an origin or nothing, '#', a hash. */
  static final String HASHED = "(https?://[a-z0-9.-]*:[0-9]+)?#[0-9a-f]{8}";

  private final VirtualClock clock = VirtualClock.create();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private Pacer pacer(HeadwayMetrics metrics, UnaryOperator<Pacer.Builder> more) {
    Pacer pacer = more.apply(Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).listener(metrics)).build();
    metrics.monitor(pacer).bindTo(registry);
    return pacer;
  }

  private static HttpFields quota(String policy, long limit, long remaining, long reset) {
    return HttpFields.of("RateLimit-Policy", "\"" + policy + "\";q=" + limit + ";w=60",
        "RateLimit", "\"" + policy + "\";r=" + remaining + ";t=" + reset);
  }

  private static HttpFields quota(String policy, long limit, long remaining, long reset,
      String pk) {
    String bytes = ";pk=:" + Base64.getEncoder()
        .encodeToString(pk.getBytes(StandardCharsets.US_ASCII)) + ":";
    return HttpFields.of("RateLimit-Policy", "\"" + policy + "\";q=" + limit + ";w=60" + bytes,
        "RateLimit", "\"" + policy + "\";r=" + remaining + ";t=" + reset + bytes);
  }

  private int quotaGauges() {
    return registry.find("headway.quota.remaining").gauges().size()
        + registry.find("headway.quota.limit").gauges().size();
  }

  private Set<String> tagValues(String key) {
    return registry.getMeters().stream().map(m -> m.getId().getTag(key))
        .filter(v -> v != null).collect(Collectors.toCollection(TreeSet::new));
  }

  /** What a scrape sees: every value of every meter. */
  private List<Double> scrape() {
    List<Double> values = new ArrayList<>();
    for (Meter meter : registry.getMeters()) {
      for (Measurement measurement : meter.measure()) {
        values.add(measurement.getValue());
      }
    }
    return values;
  }

  private static Set<String> heldPolicies(Pacer pacer, String partition) {
    return pacer.partitions().stream().filter(q -> q.partition().equals(partition))
        .flatMap(q -> q.policies().stream()).filter(p -> !p.learned())
        .map(PolicySnapshot::name).collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void policyNamesTheServerMakesUpLeaveTheGaugesOfThePoliciesThePacerHolds() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b);
    int after1000 = 0;
    for (int n = 1; n <= 5_000; n++) {
      pacer.acquire(GET).complete(200, quota("p" + n, 100, 50, 60), null);
      clock.advance(Duration.ofMillis(1)); // so the pacer drops its least recently updated
      if (n == 1_000) {
        after1000 = quotaGauges();
      }
    }
    int after5000 = quotaGauges();
    System.out.printf("[metrics-bounds] new policy name per response: %d quota gauges after"
        + " 1,000 responses, %d after 5,000 (%d meters in all)%n", after1000, after5000,
        registry.getMeters().size());

    Set<String> held = heldPolicies(pacer, API);
    assertThat(held).hasSizeLessThanOrEqualTo(16).contains("p5000");
    // Exactly the policies the pacer still holds have gauges: the forgotten ones were removed.
    assertThat(registry.find("headway.quota.remaining").gauges())
        .extracting(g -> g.getId().getTag("policy"))
        .containsExactlyInAnyOrderElementsOf(held);
    assertThat(after5000).isEqualTo(after1000).isEqualTo(2 * held.size());
    assertThat(registry.find("headway.quota.remaining").tag("policy", "p5000").gauge().value())
        .isEqualTo(50);
  }

  @Test
  void aPolicyThePacerForgetsLosesItsGaugesAtItsPartitionsNextUpdate() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b);
    pacer.acquire(GET).complete(200, quota("old", 100, 50, 60), null);
    assertThat(registry.find("headway.quota.remaining").tag("policy", "old").gauge()).isNotNull();
    // Sixteen newer policies: the pacer keeps sixteen per partition and drops the oldest.
    for (int n = 1; n <= 16; n++) {
      clock.advance(Duration.ofMillis(1));
      pacer.acquire(GET).complete(200, quota("new" + n, 100, 50, 60), null);
    }
    assertThat(heldPolicies(pacer, API)).doesNotContain("old");
    assertThat(registry.find("headway.quota.remaining").tag("policy", "old").gauge()).isNull();
    assertThat(registry.find("headway.quota.limit").tag("policy", "old").gauge()).isNull();
    assertThat(registry.find("headway.quota.remaining").tag("policy", "new16").gauge())
        .isNotNull();
  }

  @Test
  void gaugesOfPartitionsThePacerEvictedAreRemoved() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b.maxPartitions(10));
    for (int n = 1; n <= 30; n++) {
      RequestInfo request = RequestInfo.get(URI.create("https://h" + n + ".example.com/"));
      pacer.acquire(request).complete(200, quota("fixed", 10, 5, 60), null);
    }
    assertThat(registry.find("headway.quota.remaining").gauges()).hasSize(30);
    // A scrape reads the pacer (the evicted partitions' gauges read NaN); the next update
    // removes them.
    assertThat(scrape()).filteredOn(v -> v.isNaN()).isNotEmpty();
    RequestInfo known30 = RequestInfo.get(URI.create("https://h30.example.com/"));
    pacer.acquire(known30).complete(200, quota("fixed", 10, 4, 60), null);
    assertThat(scrape()).filteredOn(v -> v.isNaN()).isEmpty();

    Set<String> known = pacer.partitions().stream().map(QuotaSnapshot::partition)
        .collect(Collectors.toSet());
    assertThat(known).hasSizeLessThanOrEqualTo(10);
    assertThat(registry.find("headway.quota.remaining").gauges())
        .extracting(g -> g.getId().getTag("partition"))
        .isNotEmpty().allSatisfy(p -> assertThat(known).contains(p));
  }

  @Test
  void rotatingPkValuesShareTheirOriginsTagSoANewOriginStillGetsItsOwn() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b);
    for (int n = 1; n <= 150; n++) {
      pacer.acquire(GET).complete(200, quota("fixed", 10, 5, 60, "user" + n), null);
    }
    RequestInfo other = RequestInfo.get(URI.create("https://other.example.com/x"));
    pacer.acquire(other).complete(429, HttpFields.of("Retry-After", "1"), null);
    clock.advance(Duration.ofSeconds(1));
    pacer.acquire(other).complete(200, quota("fixed", 10, 9, 60), null);

    System.out.printf("[metrics-bounds] 150 pk values then a new origin: partition tags %s%n",
        tagValues("partition"));
    assertThat(tagValues("partition"))
        .containsExactlyInAnyOrder(API, "https://other.example.com:443");
    assertThat(registry.find("headway.pacer.throttled")
        .tags("partition", "https://other.example.com:443").counter().count()).isEqualTo(1);
    assertThat(registry.find("headway.quota.remaining")
        .tags("partition", "https://other.example.com:443", "policy", "fixed").gauge().value())
        .isEqualTo(9);
    assertThat(registry.find("headway.quota.remaining").tag("partition", API).gauges())
        .hasSize(1);
  }

  @Test
  void anOriginsGaugeShowsTheLeastRemainingOfItsPkPartitions() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b);
    pacer.acquire(GET).complete(200, quota("fixed", 10, 7, 60, "alice"), null);
    pacer.acquire(GET).complete(200, quota("fixed", 10, 3, 60, "bob"), null);
    pacer.acquire(GET).complete(200, quota("fixed", 10, 8, 60, "carol"), null);

    Gauge remaining = registry.find("headway.quota.remaining")
        .tags("partition", API, "policy", "fixed").gauge();
    assertThat(remaining.value()).isEqualTo(3);
    assertThat(registry.find("headway.quota.limit")
        .tags("partition", API, "policy", "fixed").gauge().value()).isEqualTo(10);
  }

  @Test
  void aServerThatSpendsEveryNewPolicyCannotGrowThePolicyTagsOfWaits() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b);
    clock.autoAdvance(true);
    for (int n = 1; n <= 2_000; n++) {
      // Spent until its reset in 1 s: the next request waits for this new policy.
      pacer.acquire(GET).complete(200, HttpFields.of("RateLimit-Policy", "\"w" + n + "\";q=10;w=1",
          "RateLimit", "\"w" + n + "\";r=0;t=1"), null);
    }
    Set<String> policies = registry.find("headway.pacer.wait").timers().stream()
        .map(t -> t.getId().getTag("policy")).collect(Collectors.toSet());
    double waits = registry.find("headway.pacer.wait").timers().stream()
        .mapToDouble(t -> t.count()).sum();
    System.out.printf("[metrics-bounds] new spent policy per response: %d wait timers,"
        + " %d meters in all, %.0f waits counted%n",
        registry.find("headway.pacer.wait").timers().size(), registry.getMeters().size(), waits);
    assertThat(waits).isGreaterThanOrEqualTo(1_000); // nothing counted is lost
    assertThat(policies).hasSizeLessThanOrEqualTo(16 + 2).contains("other");
    assertThat(registry.getMeters()).hasSizeLessThan(100);
  }

  @Test
  void aLongPolicyNameIsCutAndHashed() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b);
    String name = "x".repeat(200);
    pacer.acquire(GET).complete(200, quota(name, 10, 4, 60), null);
    Set<String> policies = tagValues("policy");
    assertThat(policies).hasSize(1);
    String tag = policies.iterator().next();
    assertThat(tag).hasSizeLessThanOrEqualTo(64).startsWith("xxxxxxxx").matches(".*#[0-9a-f]{8}");
    assertThat(registry.find("headway.quota.remaining").tag("policy", tag).gauge().value())
        .isEqualTo(4);
  }

  @Test
  void aHundredThousandHostileResponsesLeaveTheMetersFlat() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b);
    RequestInfo other = RequestInfo.get(URI.create("https://other.example.com/x"));
    int[] checkpoints = {1_000, 10_000, 100_000};
    int[] meters = new int[checkpoints.length];
    int[] gauges = new int[checkpoints.length];
    long[] nanos = new long[checkpoints.length];
    int c = 0;
    long start = System.nanoTime();
    for (int n = 1; n <= 100_000; n++) {
      // A new pk and a new policy name on every response, every tenth one also throttled.
      if (n % 10 == 0) {
        pacer.acquire(GET).complete(429, HttpFields.of("Retry-After", "1",
            "RateLimit-Policy", "\"t" + n + "\";q=10;w=60;pk=:" + pk(n) + ":",
            "RateLimit", "\"t" + n + "\";r=0;t=1;pk=:" + pk(n) + ":"), null);
        clock.advance(Duration.ofSeconds(1));
      } else {
        pacer.acquire(GET).complete(200, quota("p" + n, 100, 50, 60, "k" + n), null);
      }
      if (n == checkpoints[c]) {
        meters[c] = registry.getMeters().size();
        gauges[c] = quotaGauges();
        nanos[c] = System.nanoTime() - start;
        start = System.nanoTime();
        c++;
        if (c == checkpoints.length) {
          break;
        }
      }
    }
    pacer.acquire(other).complete(200, quota("fixed", 10, 9, 60), null);
    for (int i = 0; i < checkpoints.length; i++) {
      System.out.printf("[metrics-bounds] hostile sequence: after %,d responses %d meters,"
          + " %d quota gauges (%.1f us per response in this stretch)%n", checkpoints[i],
          meters[i], gauges[i], nanos[i] / 1e3 / (checkpoints[i] - (i == 0 ? 0
              : checkpoints[i - 1])));
    }
    assertThat(meters[2]).isEqualTo(meters[1]);
    assertThat(gauges[2]).isEqualTo(gauges[1]).isLessThanOrEqualTo(2 * 16);
    assertThat(tagValues("partition")).containsExactlyInAnyOrder(API,
        "https://other.example.com:443");
    assertThat(tagValues("policy").size()).isLessThanOrEqualTo(2 * 16 + 2);
  }

  private static String pk(int n) {
    return Base64.getEncoder().encodeToString(("t" + n).getBytes(StandardCharsets.US_ASCII));
  }

  /** A resolver with secrets in its keys: a path prefix, a custom key, and plain origins. */
  static final PartitionKeyResolver SECRET_KEYS = PartitionKeyResolver.of(request -> {
    String path = request.uri().getPath();
    if (path.startsWith("/hooks/")) {
      return "tenant " + path; // a custom key: a path with a secret, and no origin
    }
    return request.uri().getHost().startsWith("plain")
        ? PartitionKeyResolver.origin().resolve(request)
        : PartitionKeyResolver.originAndPathPrefix(1).resolve(request);
  });
  static final String TOKEN = "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
  static final RequestInfo BOT = RequestInfo.get(URI.create(
      "https://api.telegram.org/bot123456:" + TOKEN + "/sendMessage"));
  static final RequestInfo HOOK =
      RequestInfo.get(URI.create("https://hooks.example.com/hooks/s3cr3tHook"));
  static final RequestInfo PLAIN = RequestInfo.get(URI.create("https://plain.example.com/a/b"));

  /** A quota, a wait, a throttle with a malformed value, a quota again: every kind of meter. */
  private void driveSecretPartitions(Pacer pacer) throws Exception {
    clock.autoAdvance(true);
    for (RequestInfo request : new RequestInfo[] {BOT, HOOK, PLAIN}) {
      pacer.acquire(request).complete(200, quota("fixed", 10, 0, 2), null);
      pacer.acquire(request).complete(429, HttpFields.of("Retry-After", "1",
          "RateLimit", "\"fixed\";r=oops"), null);
      pacer.acquire(request).complete(200, quota("fixed", 10, 5, 60), null);
    }
  }

  @Test
  void noTagCarriesAPathOrACustomKey() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.create(), b -> b.partitionKeyResolver(SECRET_KEYS));
    driveSecretPartitions(pacer);

    Set<String> partitions = tagValues("partition");
    System.out.printf("[metrics-bounds] partition tags: %s%n", partitions);
    for (Meter meter : registry.getMeters()) {
      for (Tag tag : meter.getId().getTags()) {
        assertThat(tag.getValue()).as(meter.getId().toString())
            .doesNotContain(TOKEN).doesNotContain("s3cr3tHook")
            .doesNotContain("/bot").doesNotContain("/hooks");
      }
    }
    assertThat(partitions).hasSize(3).contains("https://plain.example.com:443")
        .anySatisfy(p -> assertThat(p).matches("https://api\\.telegram\\.org:443#[0-9a-f]{8}"))
        .anySatisfy(p -> assertThat(p).matches("#[0-9a-f]{8}"))
        .allSatisfy(p -> assertThat(p).matches("https://plain\\.example\\.com:443|" + HASHED));
    assertThat(registry.find("headway.quota.remaining").gauges()).hasSize(3);
    assertThat(registry.find("headway.pacer.throttled").counters()).hasSize(3);
    assertThat(registry.find("headway.pacer.wait").timers()).isNotEmpty();
  }

  @Test
  void aUserWhoseKeysHoldNoSecretCanHaveThemWhole() throws Exception {
    Pacer pacer = pacer(HeadwayMetrics.builder().partitionTag(key -> key).build(),
        b -> b.partitionKeyResolver(SECRET_KEYS));
    driveSecretPartitions(pacer);
    assertThat(registry.find("headway.pacer.throttled").counters())
        .extracting(m -> m.getId().getTag("partition")).containsExactlyInAnyOrder(
            "https://api.telegram.org:443/bot123456:" + TOKEN, "tenant /hooks/s3cr3tHook",
            "https://plain.example.com:443");
  }

  @Test
  void responsesOnFourThreadsAndAScraperLeaveBoundedMetersAndNoFailure() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    PacerListener checked = event -> {
      try {
        metrics.onEvent(event);
      } catch (Throwable e) {
        failures.add(e);
      }
    };
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).listener(checked).build();
    metrics.monitor(pacer).bindTo(registry);
    AtomicBoolean done = new AtomicBoolean();
    Thread scraper = new Thread(() -> {
      while (!done.get()) {
        try {
          scrape();
        } catch (Throwable e) {
          failures.add(e);
        }
      }
    });
    scraper.start();
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      int thread = t;
      threads[t] = new Thread(() -> {
        RequestInfo request =
            RequestInfo.get(URI.create("https://h" + thread + ".example.com/x"));
        try {
          for (int n = 1; n <= 2_000; n++) {
            pacer.acquire(request).complete(200,
                quota("p" + n, 100, 50, 60, "k" + thread + "-" + n), null);
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    done.set(true);
    scraper.join();
    assertThat(failures).isEmpty();
    assertThat(tagValues("partition")).containsExactlyInAnyOrder("https://h0.example.com:443",
        "https://h1.example.com:443", "https://h2.example.com:443", "https://h3.example.com:443");
    assertThat(quotaGauges()).isLessThanOrEqualTo(4 * 2 * 16);
    assertThat(scrape()).isNotEmpty();
  }

  @Test
  void onAPacerWithItsOwnThreadsTheGaugesStayBoundedToo() throws Exception {
    HeadwayMetrics metrics = HeadwayMetrics.create();
    try (Pacer pacer = Pacer.builder().listener(metrics).build()) {
      metrics.monitor(pacer).bindTo(registry);
      for (int n = 1; n <= 2_000; n++) {
        pacer.acquire(GET).complete(200, quota("p" + n, 100_000, 50_000, 60, "k" + n), null);
        if (n % 100 == 0) {
          scrape();
        }
      }
      long deadline = System.nanoTime() + 10_000_000_000L; // listeners run on the pacer's executor
      while (registry.find("headway.quota.remaining").tag("policy", "p2000").gauge() == null
          && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(registry.find("headway.quota.remaining").tag("policy", "p2000").gauge()
          .value()).isEqualTo(50_000);
      assertThat(quotaGauges()).isLessThanOrEqualTo(2 * 16);
      assertThat(tagValues("partition")).containsExactly(API);
    }
  }
}
