package dev.headway.internal.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.QuotaPolicy;
import dev.headway.RateLimitSignal;
import dev.headway.SanityCaps;
import dev.headway.SignalParser;
import dev.headway.SignalWarning;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A {@code RateLimit-Policy} value read again is not parsed again ({@link PolicyMemo}), and says
 * exactly what it said the first time: same policies, same warnings, the caps of the parser
 * that reads it.
 */
class PolicyMemoTest {
  private static final Instant NOW = Instant.parse("2026-11-24T05:00:00Z");

  private static RateLimitSignal parse(SignalParser parser, String policy) {
    // A new String each time, as a response's header value is.
    return parser.parse(200, HttpFields.of("RateLimit-Policy", new String(policy),
        "RateLimit", "\"day\";r=40;t=3600"), null, NOW);
  }

  @Test
  void aValueReadAgainSaysTheSameAndIsNotParsedAgain() throws Exception {
    SignalParser parser = SignalParser.create();
    String value = "\"day\";q=500;w=86400, \"burst\";q=20;w=1";
    RateLimitSignal first = parse(parser, value);
    RateLimitSignal again = parse(parser, value);
    assertThat(again).isEqualTo(first);
    assertThat(again.policies()).extracting(QuotaPolicy::name).containsExactly("day", "burst");
    assertThat(again.policies().get(0).quota()).isEqualTo(500);
    assertThat(again.policies().get(1).window()).contains(Duration.ofSeconds(1));
    assertThat(again.policies().get(0)).as("the remembered policy itself")
        .isSameAs(first.policies().get(0));
    assertThat(parse(parser, "\"day\";q=501;w=86400").policies().get(0).quota())
        .as("another value is parsed").isEqualTo(501);
  }

  @Test
  void aValueWithWarningsIsParsedEveryTimeAndWarnsEveryTime() {
    SignalParser parser = SignalParser.create();
    String value = "\"day\";q=500;w=86400, \"bad\";q=-1";
    for (int i = 0; i < 3; i++) {
      RateLimitSignal signal = parse(parser, value);
      assertThat(signal.policies()).extracting(QuotaPolicy::name).containsExactly("day");
      assertThat(signal.warnings()).extracting(SignalWarning::field)
          .containsExactly("ratelimit-policy");
    }
  }

  @Test
  void eachParserAppliesItsOwnCapsToARememberedValue() {
    String value = "\"huge\";q=5000000;w=60";
    SignalParser roomy = SignalParser.create();
    SignalParser strict = SignalParser.builder().caps(new SanityCaps(Duration.ofDays(1),
        Duration.ofDays(1), 1_000, 1_000_000_000L)).build();
    assertThat(parse(roomy, value).policies().get(0).quota()).isEqualTo(5_000_000);
    RateLimitSignal capped = parse(strict, value);
    assertThat(capped.policies().get(0).quota()).isEqualTo(1_000);
    assertThat(capped.warnings()).isNotEmpty();
    assertThat(parse(roomy, value).policies().get(0).quota()).isEqualTo(5_000_000);
  }

  @Test
  void aRememberedValueAllocatesLessThanItsParse() throws Exception {
    SignalParser parser = SignalParser.create();
    HttpFields same = HttpFields.of("RateLimit-Policy", "\"default\";q=1000;w=60;qu=\"requests\"");
    Object threads = Class.forName("java.lang.management.ManagementFactory")
        .getMethod("getThreadMXBean").invoke(null);
    Method allocated = Class.forName("com.sun.management.ThreadMXBean")
        .getMethod("getThreadAllocatedBytes", long.class);
    long thread = Thread.currentThread().getId();
    int runs = 20_000;
    HttpFields[] fresh = new HttpFields[runs];
    for (int i = 0; i < runs; i++) {
      fresh[i] = HttpFields.of("RateLimit-Policy", "\"default\";q=" + (1000 + i) + ";w=60");
    }
    RateLimitSignal sink = null;
    for (int i = 0; i < runs; i++) {
      sink = parser.parse(200, same, null, NOW);
    }
    long before = (long) allocated.invoke(threads, thread);
    for (int i = 0; i < runs; i++) {
      sink = parser.parse(200, same, null, NOW);
    }
    long remembered = ((long) allocated.invoke(threads, thread) - before) / runs;
    before = (long) allocated.invoke(threads, thread);
    for (int i = 0; i < runs; i++) {
      sink = parser.parse(200, fresh[i], null, NOW);
    }
    long parsed = ((long) allocated.invoke(threads, thread) - before) / runs;
    System.out.printf("RateLimit-Policy: %d bytes remembered, %d parsed%n", remembered, parsed);
    assertThat(sink.policies()).hasSize(1);
    assertThat(remembered).isLessThan(parsed - 100);
  }
}
