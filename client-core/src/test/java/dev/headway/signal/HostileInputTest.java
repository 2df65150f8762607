package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Bad input: no response makes parsing throw or take more than linear time (issue 2, "Bad
 * input"). Seeded, so a failure is reproducible.
 */
class HostileInputTest {
  static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");
  static final String[] NAMES = {
    "RateLimit", "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
    "Retry-After", "retry-after-ms", "x-ms-retry-after-ms", "X-Retry-In", "X-Retry-After", "Date",
    "Age", "Content-Type", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
    "X-RateLimit-Used", "X-RateLimit-Reset-After", "X-RateLimit-Bucket", "X-RateLimit-Global",
    "X-RateLimit-Resource", "X-RateLimit-Limit-Minute", "X-RateLimit-Remaining-Videos-Minute",
    "x-ratelimit-limit-requests", "x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset",
    "X-Shopify-Shop-Api-Call-Limit", "Sforce-Limit-Info", "x-ms-ratelimit-remaining-tenant-reads",
    "x-ms-user-quota-resets-after", "X-RateLimit-Replenish-Rate", "RateLimit-Reason",
    "X-RateLimit-FillRate", "x-rate-limit-reset", "X-RateLimit-Requests-Reset"};
  static final String[] FRAGMENTS = {
    "\"", "\"a\"", ";", "r=", "q=", "t=", "w=", "pk=:", ":", "=", ",", ", ", "-", "-1", "0", "1",
    "99", "1e99", "9".repeat(40), ".", "5", "NaN", "Infinity", "s", "ms", "m", "h", "T", "Z", "/",
    "(", ")", "GMT", "Mon, ", "Nov ", "2025-", "12:", "limit=", "remaining=", "reset=", " ",
    "\t", "?", "*", "%", "\\", "\u00e9", "\u0000", "true", "@", "[", "]", "{", "}"};

  final SignalParser parser = SignalParser.create();

  @Test
  void seededRandomResponsesNeverThrow() {
    Random random = new Random(20250101L);
    for (int i = 0; i < 20_000; i++) {
      HttpFields.Builder headers = HttpFields.builder();
      int count = random.nextInt(8);
      for (int h = 0; h < count; h++) {
        headers.add(NAMES[random.nextInt(NAMES.length)], value(random));
      }
      if (random.nextBoolean()) {
        headers.add("Content-Type", random.nextBoolean() ? "application/json"
            : "application/problem+json");
      }
      int status = random.nextInt(4) == 0 ? random.nextInt(1200) - 100
          : new int[] {200, 403, 429, 503}[random.nextInt(4)];
      byte[] body = random.nextBoolean() ? null : body(random);
      RateLimitSignal signal = parser.parse(status, headers.build(), body, NOW);
      assertThat(signal).isNotNull();
      assertThat(signal.warnings()).hasSizeLessThanOrEqualTo(33);
    }
  }

  static String value(Random random) {
    switch (random.nextInt(3)) {
      case 0: {
        char[] chars = new char[random.nextInt(40)];
        for (int i = 0; i < chars.length; i++) {
          chars[i] = (char) random.nextInt(random.nextBoolean() ? 128 : 0x10000);
        }
        return new String(chars);
      }
      case 1: {
        StringBuilder sb = new StringBuilder();
        int n = random.nextInt(12);
        for (int i = 0; i < n; i++) {
          sb.append(FRAGMENTS[random.nextInt(FRAGMENTS.length)]);
        }
        return sb.toString();
      }
      default: {
        String[] good = {"\"default\";r=50;t=30", "\"burst\";q=100;w=60", "100, 100;w=60",
            "limit=3, remaining=2, reset=60", "1377013266", "6m0s", "32/40", "-1",
            "Mon, 05 Aug 2019 09:27:05 GMT", "2025-08-21T12:40:59Z", "00:00:03", "64.57"};
        String base = good[random.nextInt(good.length)];
        int cut = random.nextInt(base.length() + 1);
        return random.nextBoolean() ? base : base.substring(0, cut)
            + FRAGMENTS[random.nextInt(FRAGMENTS.length)] + base.substring(cut);
      }
    }
  }

  static byte[] body(Random random) {
    if (random.nextBoolean()) {
      byte[] bytes = new byte[random.nextInt(200)];
      random.nextBytes(bytes);
      return bytes;
    }
    String[] bodies = {"{\"retry_after\": 1.5}", "{\"retryAfter\": \"x\"}",
        "{\"error\": {\"details\": [{\"retryDelay\": \"12s\"}]}}",
        "{\"type\": \"https://iana.org/assignments/http-problem-types#quota-exceeded\","
            + " \"violated-policies\": [1, \"a\", null]}", "[]", "null", "{\"retry_after\": 1e400}"};
    String body = bodies[random.nextInt(bodies.length)];
    return body.substring(0, random.nextInt(body.length() + 1)).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void hugeValuesOfEveryKnownFieldNeverThrow() {
    String big = "9".repeat(100_000);
    String bigList = "\"a\";r=1, ".repeat(10_000) + "\"a\";r=1";
    for (String name : NAMES) {
      for (String value : new String[] {big, bigList, "x".repeat(100_000), ";".repeat(100_000)}) {
        RateLimitSignal signal = parser.parse(429, HttpFields.of(name, value), NOW);
        assertThat(signal.status()).isEqualTo(429);
      }
    }
  }

  @Test
  void thousandsOfFieldLinesNeverThrow() {
    HttpFields.Builder headers = HttpFields.builder();
    for (int i = 0; i < 5_000; i++) {
      headers.add("RateLimit", "\"p" + (i % 100) + "\";r=" + i);
      headers.add("Retry-After", String.valueOf(i));
      headers.add("X-RateLimit-Limit-Minute-" + i, "5");
      headers.add("x-ratelimit-q" + i + "-remaining", String.valueOf(i));
    }
    RateLimitSignal signal = parser.parse(429, headers.build(), NOW);
    assertThat(signal.limits()).hasSizeLessThanOrEqualTo(128);
    assertThat(signal.retryAfter()).isPresent();
  }

  /**
   * Quadratic behaviour would make four times the input cost about sixteen times as much; linear
   * costs about four. Cost is counted in bytes allocated by the parsing thread, which does not
   * depend on how loaded the machine is (wall time would; speed is for the JMH benchmarks). The
   * bound (six) leaves room for fixed costs and growth steps of internal buffers.
   */
  @Test
  void parsingCostIsLinearInTheInput() throws ReflectiveOperationException {
    assertLinear(n -> HttpFields.of("RateLimit", "\"a\";r=1, ".repeat(n) + "\"b\";r=2"));
    assertLinear(n -> HttpFields.of("RateLimit-Limit", "10, 10;w=1, ".repeat(n) + "1"));
    assertLinear(n -> {
      HttpFields.Builder headers = HttpFields.builder();
      for (int i = 0; i < n; i++) {
        headers.add("x-ratelimit-p" + i + "-limit", "5");
      }
      return headers.build();
    });
    assertLinear(n -> HttpFields.of("Retry-After", "1".repeat(n * 10)));
    assertLinear(n -> HttpFields.of("RateLimit-Policy", "\"p\";q=1;w=1;x=(a b c), ".repeat(n)));
  }

  private void assertLinear(IntFunction<HttpFields> input) throws ReflectiveOperationException {
    int n = 2_000;
    HttpFields small = input.apply(n);
    HttpFields large = input.apply(4 * n);
    parser.parse(200, small, NOW); // warm up: class loading and caches allocate once
    long smallBytes = allocatedBy(small);
    long largeBytes = allocatedBy(large);
    assertThat(largeBytes).as("4x input: %d bytes vs %d bytes", largeBytes, smallBytes)
        .isLessThan(6 * Math.max(smallBytes, 64 * 1024));
  }

  private long allocatedBy(HttpFields headers) throws ReflectiveOperationException {
    // Reflection: the tests compile inside the module, which does not read java.management.
    Object threads = Class.forName("java.lang.management.ManagementFactory")
        .getMethod("getThreadMXBean").invoke(null);
    java.lang.reflect.Method allocated = Class.forName("com.sun.management.ThreadMXBean")
        .getMethod("getThreadAllocatedBytes", long.class);
    long thread = Thread.currentThread().getId();
    long before = (long) allocated.invoke(threads, thread);
    parser.parse(200, headers, NOW);
    return (long) allocated.invoke(threads, thread) - before;
  }
}
