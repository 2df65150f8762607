package dev.headway.benchmarks.jmh;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * What it costs to read the rate-limit signals of one typical response, headers already split
 * into an {@link HttpFields} (as every adapter hands them over). Run with {@code -prof gc} for
 * bytes allocated per response ({@code gc.alloc.rate.norm}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ParseBenchmark {
  private static final Instant RECEIVED_AT = Instant.parse("2025-06-01T12:00:00.250Z");
  private static final String DATE =
      DateTimeFormatter.RFC_1123_DATE_TIME.format(RECEIVED_AT.atOffset(ZoneOffset.UTC));

  private final SignalParser parser = SignalParser.create();

  /** The current draft's structured pair, as a server following draft -08 and later sends it. */
  private final HttpFields structured = HttpFields.of(
      "Content-Type", "application/json",
      "Date", DATE,
      "RateLimit-Policy", "\"default\";q=100;w=60",
      "RateLimit", "\"default\";r=42;t=17");

  /** The legacy trio with the reset as epoch seconds (GitHub, many gateways). */
  private final HttpFields legacyEpoch = HttpFields.of(
      "Content-Type", "application/json",
      "Date", DATE,
      "X-RateLimit-Limit", "5000",
      "X-RateLimit-Remaining", "4987",
      "X-RateLimit-Reset", Long.toString(RECEIVED_AT.getEpochSecond() + 1800));

  /** A 429 whose only signal is {@code Retry-After} as an HTTP-date. */
  private final HttpFields retryAfterDate = HttpFields.of(
      "Content-Type", "text/plain",
      "Date", DATE,
      "Retry-After", DateTimeFormatter.RFC_1123_DATE_TIME.format(
          RECEIVED_AT.plusSeconds(30).atOffset(ZoneOffset.UTC)));

  /** {@code RateLimit} + {@code RateLimit-Policy} + {@code Date} on a 200. */
  @Benchmark
  public RateLimitSignal structuredPair() {
    return parser.parse(200, structured, RECEIVED_AT);
  }

  /** {@code X-RateLimit-Limit/-Remaining/-Reset} (epoch seconds) + {@code Date} on a 200. */
  @Benchmark
  public RateLimitSignal xRateLimitEpoch() {
    return parser.parse(200, legacyEpoch, RECEIVED_AT);
  }

  /** {@code Retry-After} as an HTTP-date + {@code Date} on a 429. */
  @Benchmark
  public RateLimitSignal retryAfterHttpDate() {
    return parser.parse(429, retryAfterDate, RECEIVED_AT);
  }
}
