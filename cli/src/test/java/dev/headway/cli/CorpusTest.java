package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.headway.dialect.FieldValues;
import dev.headway.HttpFields;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every documented example of dialects.md that carries a number, field by field, through both
 * paths a user has: {@code headway explain} (its JSON) and {@link SignalParser} (the signal).
 *
 * <p>The expected values are in {@code src/test/resources/corpus/expected.json}: one entry per
 * fixture, with the section of dialects.md it comes from and the complete {@code explain} JSON
 * it must give. Fixtures named {@code responses/...} are this module's; {@code dialects/...} are
 * client-core's (its test-jar). Responses without a {@code Date} are read at {@link Cli#CLOCK}.
 */
class CorpusTest {
  private static final String EXPECTED = "/corpus/expected.json";

  static JsonNode expected() {
    try (InputStream in = CorpusTest.class.getResourceAsStream(EXPECTED)) {
      if (in == null) {
        throw new AssertionError(EXPECTED + " is missing from the test classpath");
      }
      return Cli.JSON.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Stream<Arguments> corpus() {
    return StreamSupport.stream(expected().spliterator(), false)
        .map(entry -> Arguments.of(entry.get("fixture").asText(), entry.get("source").asText(),
            entry.get("explain")));
  }

  static byte[] load(String path) {
    try (InputStream in = CorpusTest.class.getResourceAsStream("/" + path)) {
      if (in == null) {
        throw new AssertionError("no fixture " + path + " on the test classpath (responses/ is"
            + " this module's src/test/resources, dialects/ comes from client-core's test-jar)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void everyFixtureIsListedOnceAndEveryCliFixtureIsInTheCorpus() throws Exception {
    List<String> listed = new ArrayList<>();
    expected().forEach(entry -> listed.add(entry.get("fixture").asText()));
    assertThat(listed).doesNotHaveDuplicates();
    Path responses = Path.of(CorpusTest.class.getResource("/responses").toURI());
    try (Stream<Path> files = Files.list(responses)) {
      files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".http"))
          .forEach(n -> assertThat(listed).as("corpus lists responses/" + n)
              .contains("responses/" + n));
    }
    expected().forEach(entry -> assertThat(entry.get("source").asText())
        .as(entry.get("fixture") + " names its source").startsWith("dialects.md"));
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("corpus")
  void throughExplain(String fixture, String source, JsonNode expected) {
    String response = new String(load(fixture), StandardCharsets.ISO_8859_1);

    JsonNode json = Cli.run(response, "explain").ok();

    same(json, expected, fixture + ": explain");
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("corpus")
  void throughSignalParser(String fixture, String source, JsonNode expected) throws Exception {
    RawResponse response = RawResponseReader.read(load(fixture));
    HttpFields fields = response.fields();
    Instant receivedAt = fields.firstValue("Date").flatMap(FieldValues::httpDate)
        .orElse(Cli.CLOCK);
    byte[] body = response.body().length == 0 ? null : response.body();

    RateLimitSignal signal = SignalParser.create().parse(response.status(), fields, body,
        receivedAt);
    try {
      sameSignal(signal, response.notes(), expected);
    } catch (AssertionError e) {
      throw new AssertionError(fixture + ": SignalParser: " + e.getMessage(), e);
    }
  }

  static void sameSignal(RateLimitSignal signal, List<String> notes, JsonNode expected) {

    assertThat(signal.status()).as("status").isEqualTo(expected.get("status").asInt());
    assertThat(signal.dialects()).as("dialects")
        .containsExactlyElementsOf(Cli.strings(expected.get("dialects")));
    seconds(signal.retryAfter().or(signal::bodyRetryAfter), expected.get("retryAfterSeconds"),
        "retryAfter (else the body's)");
    seconds(signal.nextRequestDelay(), expected.get("nextRequestSeconds"), "nextRequestDelay");

    JsonNode policies = expected.get("policies");
    assertThat(signal.policies()).as("policies").hasSize(policies.size());
    for (int i = 0; i < policies.size(); i++) {
      QuotaPolicy actual = signal.policies().get(i);
      JsonNode p = policies.get(i);
      String at = "policies[" + i + "].";
      assertThat(actual.name()).as(at + "name").isEqualTo(p.get("name").asText());
      assertThat(actual.quota()).as(at + "quota").isEqualTo(p.get("quota").asLong());
      assertThat(actual.unit().token()).as(at + "unit").isEqualTo(p.get("unit").asText());
      seconds(actual.window(), p.get("windowSeconds"), at + "window");
      text(actual.partitionKey(), p.get("partitionKey"), at + "partitionKey");
    }
    JsonNode limits = expected.get("limits");
    assertThat(signal.limits()).as("limits").hasSize(limits.size());
    for (int i = 0; i < limits.size(); i++) {
      QuotaLimit actual = signal.limits().get(i);
      JsonNode l = limits.get(i);
      String at = "limits[" + i + "].";
      assertThat(actual.policy()).as(at + "policy").isEqualTo(l.get("policy").asText());
      assertThat(actual.remaining()).as(at + "remaining").isEqualTo(l.get("remaining").asLong());
      seconds(actual.reset(), l.get("resetSeconds"), at + "reset");
      text(actual.partitionKey(), l.get("partitionKey"), at + "partitionKey");
    }
    JsonNode resets = expected.get("resets");
    assertThat(signal.resets()).as("resets").hasSize(resets.size());
    for (int i = 0; i < resets.size(); i++) {
      QuotaReset actual = signal.resets().get(i);
      JsonNode r = resets.get(i);
      String at = "resets[" + i + "].";
      assertThat(actual.policy()).as(at + "policy").isEqualTo(r.get("policy").asText());
      seconds(Optional.of(actual.reset()), r.get("resetSeconds"), at + "reset");
      text(actual.partitionKey(), r.get("partitionKey"), at + "partitionKey");
    }

    // effective: the most restrictive limit, and the quota of its policy.
    JsonNode effective = expected.get("effective");
    Optional<QuotaLimit> most = signal.mostRestrictive();
    if (effective.get("remaining").isNull()) {
      assertThat(most).as("mostRestrictive").isEmpty();
    } else {
      assertThat(most).as("mostRestrictive").isPresent();
      assertThat(most.get().remaining()).as("mostRestrictive.remaining")
          .isEqualTo(effective.get("remaining").asLong());
      seconds(most.get().reset(), effective.get("resetSeconds"), "mostRestrictive.reset");
      if (!effective.get("limit").isNull()) {
        Optional<QuotaPolicy> policy = signal.policy(most.get().policy(),
            most.get().partitionKey()).or(() -> signal.policies().stream()
                .filter(p -> p.name().equals(most.get().policy())).findFirst());
        assertThat(policy).as("policy of the most restrictive limit").isPresent();
        assertThat(policy.get().quota()).as("quota of the most restrictive limit")
            .isEqualTo(effective.get("limit").asLong());
      }
    }

    List<String> warnings = new ArrayList<>(notes);
    signal.warnings().forEach(w -> warnings.add(w.field() + ": " + w.message()));
    assertThat(warnings).as("warnings")
        .containsExactlyElementsOf(Cli.strings(expected.get("warnings")));
  }

  /** Asserts a duration against a JSON number of seconds, or its absence against null. */
  static void seconds(Optional<Duration> actual, JsonNode expected, String what) {
    assertThat(expected).as(what + " is in the expected values").isNotNull();
    if (expected.isNull()) {
      assertThat(actual).as(what).isEmpty();
    } else {
      assertThat(actual).as(what).isPresent();
      BigDecimal seconds = BigDecimal.valueOf(actual.get().getSeconds())
          .add(BigDecimal.valueOf(actual.get().getNano(), 9));
      assertThat(seconds).as(what).isEqualByComparingTo(expected.decimalValue());
    }
  }

  static void text(Optional<String> actual, JsonNode expected, String what) {
    assertThat(expected).as(what + " is in the expected values").isNotNull();
    assertThat(actual).as(what)
        .isEqualTo(expected.isNull() ? Optional.empty() : Optional.of(expected.asText()));
  }

  /** Asserts two JSON trees equal, numbers compared by value, naming the first difference. */
  static void same(JsonNode actual, JsonNode expected, String path) {
    if (expected.isNumber()) {
      assertThat(actual.isNumber()).as(path + " is a number but was " + actual).isTrue();
      assertThat(actual.decimalValue()).as(path).isEqualByComparingTo(expected.decimalValue());
    } else if (expected.isObject()) {
      assertThat(actual.isObject()).as(path + " is an object but was " + actual).isTrue();
      List<String> names = new ArrayList<>();
      actual.fieldNames().forEachRemaining(names::add);
      List<String> expectedNames = new ArrayList<>();
      expected.fieldNames().forEachRemaining(expectedNames::add);
      assertThat(names).as(path + " fields").containsExactlyElementsOf(expectedNames);
      for (String name : expectedNames) {
        same(actual.get(name), expected.get(name), path + "." + name);
      }
    } else if (expected.isArray()) {
      assertThat(actual.isArray()).as(path + " is an array but was " + actual).isTrue();
      assertThat(actual.size()).as(path + " size; was " + actual).isEqualTo(expected.size());
      for (int i = 0; i < expected.size(); i++) {
        same(actual.get(i), expected.get(i), path + "[" + i + "]");
      }
    } else {
      assertThat(actual).as(path).isEqualTo(expected);
    }
  }
}
