package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The parser skips a built-in dialect when no field of the families it reads is present. A
 * skipped dialect must be one that would have found nothing: every response parses to the same
 * signal as with the same dialects wrapped so that nothing is ever skipped.
 */
class DialectSkippingTest {
  final SignalParser skipping = SignalParser.create();
  final SignalParser everyDialect = SignalParser.builder()
      .dialects(skipping.dialects().stream().map(DialectSkippingTest::neverSkipped).toList())
      .build();

  /** The same dialect behind a plain {@link Dialect}, which the parser cannot skip. */
  static Dialect neverSkipped(Dialect dialect) {
    return new Dialect() {
      @Override
      public String name() {
        return dialect.name();
      }

      @Override
      public void read(DialectContext context, SignalSink sink) {
        dialect.read(context, sink);
      }
    };
  }

  static List<Fixture> fixtures() throws IOException, URISyntaxException {
    Path dir = Path.of(Fixture.class.getResource("/dialects").toURI());
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().map(Fixture::load).toList();
    }
  }

  @Test
  void everyFixtureParsesAsWithoutSkipping() throws Exception {
    List<Fixture> fixtures = fixtures();
    assertThat(fixtures).hasSizeGreaterThan(50);
    int recognised = 0;
    for (Fixture f : fixtures) {
      RateLimitSignal expected =
          everyDialect.parse(f.status(), f.headers(), f.body(), Fixture.RECEIVED_AT);
      assertThat(skipping.parse(f.status(), f.headers(), f.body(), Fixture.RECEIVED_AT))
          .as(f.name())
          .isEqualTo(expected);
      recognised += expected.dialects().isEmpty() ? 0 : 1;
    }
    assertThat(recognised).as("fixtures some dialect recognised").isGreaterThan(50);
  }

  @Test
  void pairsOfFixturesMergedParseAsWithoutSkipping() throws Exception {
    List<Fixture> fixtures = fixtures();
    for (int i = 0; i < fixtures.size(); i++) {
      Fixture a = fixtures.get(i);
      Fixture b = fixtures.get((i * 7 + 3) % fixtures.size());
      HttpFields.Builder merged = HttpFields.builder();
      for (Fixture f : List.of(a, b)) {
        for (Map.Entry<String, List<String>> field : f.headers().asMap().entrySet()) {
          field.getValue().forEach(v -> merged.add(field.getKey(), v));
        }
      }
      HttpFields headers = merged.build();
      assertThat(skipping.parse(a.status(), headers, a.body(), Fixture.RECEIVED_AT))
          .as(a.name() + " + " + b.name())
          .isEqualTo(everyDialect.parse(a.status(), headers, a.body(), Fixture.RECEIVED_AT));
    }
  }

  @Test
  void seededRandomResponsesParseAsWithoutSkipping() {
    Random random = new Random(7L);
    List<String> names = new ArrayList<>(List.of(HostileInputTest.NAMES));
    names.addAll(List.of("x-ratelimit-", "x-rate-limit-", "ratelimit", "x-ms-", "retry-",
        "x-retry-", "anthropic-ratelimit-requests-remaining", "x-shopify-", "sforce-",
        "x-ms-ratelimit-remaining-", "X-RateLimit-Scope", "X-RateLimit-NearLimit",
        "X-RateLimit-Interval-Seconds", "x-ratelimit-burst-capacity", "X-Retry"));
    for (int i = 0; i < 5_000; i++) {
      HttpFields.Builder headers = HttpFields.builder();
      int count = random.nextInt(6);
      for (int h = 0; h < count; h++) {
        headers.add(names.get(random.nextInt(names.size())),
            HostileInputTest.FRAGMENTS[random.nextInt(HostileInputTest.FRAGMENTS.length)]
                + random.nextInt(100));
      }
      HttpFields built = headers.build();
      int status = random.nextBoolean() ? 200 : 429;
      assertThat(skipping.parse(status, built, HostileInputTest.NOW))
          .as(built.toString())
          .isEqualTo(everyDialect.parse(status, built, HostileInputTest.NOW));
    }
  }
}
