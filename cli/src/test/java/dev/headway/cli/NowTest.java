package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.QuotaLimit;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;
import dev.headway.testing.VirtualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which wall-clock time the parser is given: {@code --now}, else the {@code Date} field, else the
 * clock. Observed through a dialect that records the context it is called with and reports a
 * limit resetting at the epoch second in {@code Test-Reset-At}.
 */
class NowTest {
  private static final String RESPONSE = "HTTP/1.1 200 OK\r\nTest-Reset-At: 1700000060\r\n\r\n";
  private static final String DATED = "HTTP/1.1 200 OK\r\nDate: Tue, 14 Nov 2023 22:13:00 GMT\r\n"
      + "Test-Reset-At: 1700000060\r\n\r\n";

  /** Records every context; reports {@code Test-Reset-At} minus the context's now as a reset. */
  static final class RecordingDialect implements Dialect {
    final List<DialectContext> contexts = new ArrayList<>();

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public void read(DialectContext context, SignalSink sink) {
      contexts.add(context);
      context.headers().firstValue("Test-Reset-At").ifPresent(at -> sink.limit(new QuotaLimit(
          "default", 1, Optional.of(Duration.between(context.now(),
              Instant.ofEpochSecond(Long.parseLong(at)))), Optional.empty(), name())));
    }
  }

  private final RecordingDialect dialect = new RecordingDialect();

  private Cli.Result run(String input, VirtualClock clock, String... args) {
    List<String> all = new ArrayList<>(List.of("explain"));
    all.addAll(List.of(args));
    return Cli.run(input.getBytes(StandardCharsets.ISO_8859_1), clock,
        Cli.withDialects(dialect), all.toArray(String[]::new));
  }

  private Instant now() {
    assertThat(dialect.contexts).hasSize(1);
    return dialect.contexts.get(0).now();
  }

  @Test
  void epochSecondsFixTheClock() {
    Cli.Result result = run(RESPONSE, Cli.clock(), "--now", "1700000000");

    assertThat(now()).isEqualTo(Instant.ofEpochSecond(1_700_000_000));
    assertThat(result.ok().get("limits").get(0).get("resetSeconds").asLong()).isEqualTo(60);
  }

  @Test
  void fractionalEpochSeconds() {
    Cli.Result result = run(RESPONSE, Cli.clock(), "--now=1700000000.25");

    assertThat(now()).isEqualTo(Instant.ofEpochSecond(1_700_000_000, 250_000_000));
    assertThat(result.ok().get("limits").get(0).get("resetSeconds").decimalValue())
        .isEqualByComparingTo("59.75");
  }

  @Test
  void rfc3339WithOffsetOrSpaceOrLowerCase() {
    run(RESPONSE, Cli.clock(), "--now", "2023-11-14T23:13:20+01:00");
    run(RESPONSE, Cli.clock(), "--now", "2023-11-14 22:13:20Z");
    run(RESPONSE, Cli.clock(), "--now", "2023-11-14t22:13:20.000z");

    assertThat(dialect.contexts).extracting(DialectContext::now)
        .containsOnly(Instant.ofEpochSecond(1_700_000_000));
  }

  @Test
  void theDateFieldIsUsedWithoutNow() {
    Cli.Result result = run(DATED, Cli.clock());

    assertThat(now()).isEqualTo(Instant.parse("2023-11-14T22:13:00Z"));
    assertThat(dialect.contexts.get(0).receivedAt()).isEqualTo(now());
    assertThat(result.ok().get("limits").get(0).get("resetSeconds").asLong()).isEqualTo(80);
  }

  @Test
  void nowWinsOverTheDateField() {
    Cli.Result result = run(DATED, Cli.clock(), "--now", "1700000000");

    assertThat(now()).isEqualTo(Instant.ofEpochSecond(1_700_000_000));
    assertThat(result.ok().get("limits").get(0).get("resetSeconds").asLong()).isEqualTo(60);
  }

  @Test
  void theClockIsUsedWithoutNowOrDate() {
    VirtualClock clock = VirtualClock.startingAt(Instant.ofEpochSecond(1_700_000_000));
    clock.advance(Duration.ofSeconds(15));

    Cli.Result result = run(RESPONSE, clock);

    assertThat(now()).isEqualTo(Instant.ofEpochSecond(1_700_000_015));
    assertThat(result.ok().get("limits").get(0).get("resetSeconds").asLong()).isEqualTo(45);
  }

  @Test
  void anUnparseableDateFallsBackToTheClock() {
    VirtualClock clock = VirtualClock.startingAt(Instant.ofEpochSecond(1_700_000_030));

    run("HTTP/1.1 200 OK\nDate: yesterday-ish\nTest-Reset-At: 1700000060\n", clock);

    assertThat(dialect.contexts.get(0).receivedAt())
        .isEqualTo(Instant.ofEpochSecond(1_700_000_030));
  }
}
