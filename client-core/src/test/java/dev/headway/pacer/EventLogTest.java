package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.ClientPolicy;
import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PartitionKeyResolver;
import dev.headway.RequestInfo;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.CapturedLogs.Line;
import dev.headway.testing.VirtualClock;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the pacer writes to System.Logger "dev.headway.pacer". */
@Timeout(30)
class EventLogTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(API);
  static final String KEY = "https://api.example.com:443";

  private final VirtualClock clock = VirtualClock.create();

  @BeforeEach
  void forget() {
    CapturedLogs.clear();
  }

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(Duration.ofMinutes(2));
  }

  private static List<Line> lines(Level level) {
    return CapturedLogs.lines("dev.headway.pacer").stream().filter(l -> l.level() == level)
        .toList();
  }

  private static void throttle(Pacer pacer, RequestInfo request) throws Exception {
    pacer.tryAcquire(request).orElseThrow()
        .complete(429, HttpFields.of("Retry-After", "1"), null);
  }

  @Test
  void aThrottleThatHoldsNothingSaysSoRatherThanHoldingForZeroSeconds() throws Exception {
    Pacer pacer = builder().build();
    pacer.tryAcquire(GET).orElseThrow()
        .complete(429, HttpFields.of("Retry-After", "0"), null);

    assertThat(lines(Level.WARNING)).singleElement().extracting(Line::message).isEqualTo(
        "Headway: " + KEY + " throttled by the server (429): it said to retry at once, so"
            + " nothing is held");
  }

  @Test
  void aHoldIsAWarningAtMostOncePerPartitionAndMinute() throws Exception {
    Pacer pacer = builder().build();
    throttle(pacer, GET);
    assertThat(lines(Level.WARNING)).singleElement().extracting(Line::message).isEqualTo(
        "Headway: " + KEY + " throttled by the server (429): holding every request for 1 s");

    for (int i = 0; i < 3; i++) {
      clock.advance(Duration.ofSeconds(2));
      throttle(pacer, GET);
    }
    assertThat(lines(Level.WARNING)).hasSize(1); // 6 s later: still quiet
    RequestInfo other = RequestInfo.get(URI.create("https://other.example.com/x"));
    throttle(pacer, other);
    assertThat(lines(Level.WARNING)).hasSize(2).last().extracting(Line::message).asString()
        .startsWith("Headway: https://other.example.com:443 throttled");

    clock.advance(Duration.ofSeconds(54)); // a minute after the first line
    throttle(pacer, GET);
    assertThat(lines(Level.WARNING)).hasSize(3).last().extracting(Line::message).asString()
        .endsWith("holding every request for 1 s (3 more like it in the last minute not logged)");
  }

  @Test
  void aCappedValueIsAWarningAndDecisionsAreDebugLines() throws Exception {
    Pacer pacer = builder().declare(ClientPolicy.tokenBucket("tb", 10, Duration.ofMinutes(1),
        1, 1)).build();
    pacer.tryAcquire(GET).orElseThrow()
        .complete(200, HttpFields.of("Retry-After", "999999999"), null);
    assertThat(lines(Level.WARNING)).singleElement().extracting(Line::message).asString()
        .startsWith("Headway: " + KEY + ": rate-limit field retry-after capped: ");

    CapturedLogs.clear();
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.autoAdvance(true);
    pacer.acquire(GET).release();
    assertThat(lines(Level.DEBUG)).extracting(Line::message).containsExactly(
        "Headway: " + KEY + ": refused now by policy tb",
        "Headway: " + KEY + ": delayed 6 s by policy tb",
        "Headway: " + KEY + ": waited 6 s for policy tb, acquired");
    assertThat(lines(Level.WARNING)).isEmpty();
  }

  @Test
  void noLineHoldsACredentialAQueryOrAFullUrl() throws Exception {
    URI secretUri = URI.create("https://user:s3cret@api.example.com/v1/items?token=abc123#frag");
    RequestInfo secret = new RequestInfo("GET", secretUri,
        HttpFields.of("Authorization", "Bearer tok-XYZ"), OptionalLong.empty());
    for (PartitionKeyResolver resolver : List.of(PartitionKeyResolver.origin(),
        PartitionKeyResolver.originAndCredential("Authorization"),
        PartitionKeyResolver.originAndPathPrefix(2),
        PartitionKeyResolver.of(r -> r.uri().toString()))) {
      CapturedLogs.clear();
      Pacer pacer = builder().partitionKeyResolver(resolver).build();
      throttle(pacer, secret);
      clock.autoAdvance(true);
      pacer.acquire(secret).complete(200, HttpFields.of("RateLimit", "oops"), null);
      pacer.retryDelay(secret, pacer.acquire(secret).complete(429, HttpFields.empty(), null), 1);
      clock.autoAdvance(false);
      List<Line> all = CapturedLogs.lines("dev.headway.pacer");
      assertThat(all).as(resolver.toString()).isNotEmpty();
      assertThat(all).as(resolver.toString()).allSatisfy(line -> assertThat(line.message())
          .doesNotContain("s3cret", "user", "token", "abc123", "tok-XYZ", "?", "frag"));
    }
  }
}
