package dev.headway.internal.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SanityCaps;
import dev.headway.SignalWarning;
import dev.headway.testing.CapturedLogs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A Jackson that is missing or older than the code expects throws {@link LinkageError}s
 * ({@code NoClassDefFoundError}, {@code NoSuchMethodError}, {@code ExceptionInInitializerError})
 * from body parsing: the signal must then carry everything the headers say and no body hint. A
 * Jackson that is absent from the start skips bodies with one logged warning.
 */
class BodyLinkageTest {
  private static final HttpFields HEADERS = HttpFields.of(
      "Content-Type", "application/json",
      "Retry-After", "20",
      "RateLimit-Policy", "\"default\";q=100;w=60",
      "RateLimit", "\"default\";r=0;t=20");
  private static final byte[] BODY = "{\"retry_after\": 5}".getBytes(StandardCharsets.UTF_8);

  private static RateLimitSignal readWith(LinkageError error, AtomicInteger calls) {
    SignalReader reader = new SignalReader(SanityCaps.defaults(), BuiltInDialects.all(),
        (status, body, headers, context, sink) -> {
          calls.incrementAndGet();
          throw error;
        });
    return reader.read(429, HEADERS, BODY, Instant.EPOCH);
  }

  @Test
  void aMissingJacksonClassMeansNoBodyHintAndAWarning() {
    AtomicInteger calls = new AtomicInteger();
    RateLimitSignal signal = readWith(
        new NoClassDefFoundError("com/fasterxml/jackson/core/StreamReadConstraints"), calls);

    assertThat(calls).hasValue(1);
    assertThat(signal.bodyRetryAfter()).isEmpty();
    assertThat(signal.retryAfter()).contains(Duration.ofSeconds(20));
    assertThat(signal.limits()).singleElement()
        .satisfies(limit -> assertThat(limit.remaining()).isZero());
    assertThat(signal.policies()).hasSize(1);
    assertThat(signal.throttled()).isTrue();
    assertThat(signal.nextRequestDelay()).contains(Duration.ofSeconds(20));
    assertThat(signal.warnings()).singleElement().satisfies(w -> {
      assertThat(w.field()).isEqualTo("body");
      assertThat(w.kind()).isEqualTo(SignalWarning.Kind.DROPPED);
      assertThat(w.message()).contains("JSON library unavailable")
          .contains("StreamReadConstraints");
    });
  }

  @Test
  void aMissingJacksonMethodOrFailedInitialisationIsHandledTheSameWay() {
    for (LinkageError error : new LinkageError[] {
        new NoSuchMethodError("ObjectMapper.readTree"),
        new ExceptionInInitializerError("mapper"),
        new IncompatibleClassChangeError("JsonNode")}) {
      RateLimitSignal signal = readWith(error, new AtomicInteger());
      assertThat(signal.bodyRetryAfter()).as("%s", error).isEmpty();
      assertThat(signal.retryAfter()).as("%s", error).contains(Duration.ofSeconds(20));
      assertThat(signal.warnings()).as("%s", error).extracting(SignalWarning::kind)
          .containsExactly(SignalWarning.Kind.DROPPED);
    }
  }

  @Test
  void withoutTheFailureTheSameBodyGivesItsHint() {
    RateLimitSignal signal = new SignalReader(SanityCaps.defaults(), BuiltInDialects.all())
        .read(429, HEADERS, BODY, Instant.EPOCH);
    assertThat(signal.bodyRetryAfter()).contains(Duration.ofSeconds(5));
    assertThat(signal.warnings()).isEmpty();
  }

  @Test
  void withoutJacksonBodiesAreSkippedSilentlyAndOneInfoLineIsLogged() {
    SignalReader reader = new SignalReader(SanityCaps.defaults(), BuiltInDialects.all(),
        new JsonBodies.Skipped());
    CapturedLogs.clear();
    for (int i = 0; i < 3; i++) {
      RateLimitSignal signal = reader.read(429, HEADERS, BODY, Instant.EPOCH);
      assertThat(signal.bodyRetryAfter()).isEmpty();
      assertThat(signal.retryAfter()).contains(Duration.ofSeconds(20));
      assertThat(signal.limits()).hasSize(1);
      assertThat(signal.warnings()).as("no warning per response").isEmpty();
    }
    assertThat(CapturedLogs.lines(SignalReader.LOGGER))
        .filteredOn(line -> line.message().equals(JsonBodies.Skipped.WARNING))
        .singleElement()
        .satisfies(line -> assertThat(line.level()).as("Jackson is optional: not a WARNING")
            .isEqualTo(System.Logger.Level.INFO));
  }

  @Test
  void jacksonIsFoundWhereItIsAndAnAbsentClassIsNot() {
    assertThat(JsonBodies.available(JsonBodies.JACKSON_CLASS)).isTrue();
    assertThat(JsonBodies.available("com.fasterxml.jackson.databind.NoSuchMapper")).isFalse();
    assertThat(JsonBodies.reader()).isNotInstanceOf(JsonBodies.Skipped.class);
  }

  @Test
  void decidingWhichBodiesToReadNeedsNoJsonLibrary() {
    // readsBody is answered by BodyHints, which references no Jackson type.
    assertThat(SignalReader.readsBody(429, HEADERS)).isTrue();
    assertThat(SignalReader.readsBody(200, HEADERS)).isFalse();
  }
}
