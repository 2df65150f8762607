package dev.headway.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.SignalParser;
import dev.headway.dialect.DialectContext;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The {@code Date} field: the parser remembers the last value it parsed; a different value, an
 * invalid one or none must never be answered with a remembered one.
 */
class ServerDateTest {
  static final Instant RECEIVED = Instant.parse("2025-01-01T00:00:00Z");
  static final String NINE = "Wed, 01 Jan 2025 09:00:00 GMT";
  static final String TEN = "Wed, 01 Jan 2025 10:00:00 GMT";

  static Optional<Instant> serverDate(HttpFields headers) {
    return DialectContext.of(200, headers, RECEIVED).serverDate();
  }

  @Test
  void eachResponseGetsItsOwnDateWhenValuesAlternate() {
    for (int i = 0; i < 3; i++) {
      assertThat(serverDate(HttpFields.of("Date", NINE)))
          .contains(Instant.parse("2025-01-01T09:00:00Z"));
      assertThat(serverDate(HttpFields.of("Date", NINE)))
          .contains(Instant.parse("2025-01-01T09:00:00Z"));
      assertThat(serverDate(HttpFields.of("Date", TEN)))
          .contains(Instant.parse("2025-01-01T10:00:00Z"));
      assertThat(serverDate(HttpFields.of("Date", "garbage"))).isEmpty();
      assertThat(serverDate(HttpFields.empty())).isEmpty();
      assertThat(serverDate(HttpFields.of("Date", ""))).isEmpty();
    }
  }

  @Test
  void epochResetsAreMeasuredFromEachResponsesOwnDate() {
    SignalParser parser = SignalParser.create();
    long reset = Instant.parse("2025-01-01T10:30:00Z").getEpochSecond();
    for (int i = 0; i < 3; i++) {
      for (String date : new String[] {NINE, TEN, NINE}) {
        HttpFields headers = HttpFields.of("Date", date, "X-RateLimit-Limit", "10",
            "X-RateLimit-Remaining", "5", "X-RateLimit-Reset", Long.toString(reset));
        Duration expected = date.equals(NINE) ? Duration.ofMinutes(90) : Duration.ofMinutes(30);
        assertThat(parser.parse(200, headers, RECEIVED).limits().get(0).reset())
            .as(date)
            .contains(expected);
      }
    }
  }
}
