package dev.headway.internal.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.SignalParser;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SignalParser#readsBody} is the adapters' rule for which bodies to capture; it must say
 * exactly what {@link SignalParser#parse} reads, or a hint is lost (or a body captured for
 * nothing).
 */
class ReadsBodyTest {
  private static final byte[] HINT = "{\"retry_after\": 7}".getBytes(StandardCharsets.UTF_8);

  @Test
  void readsBodyAgreesWithWhatTheParserReads() {
    SignalParser parser = SignalParser.create();
    List<Integer> statuses = List.of(200, 400, 403, 404, 429, 500, 502, 503, 504);
    List<String> types = List.of("", "application/json", "APPLICATION/JSON; charset=utf-8",
        "text/json", "application/problem+json", "application/vnd.api+json", "text/plain",
        "text/html", "application/jsonp", "application/x-json-stream", " application/json ");
    int read = 0;
    for (int status : statuses) {
      for (String type : types) {
        HttpFields headers = type.isEmpty() ? HttpFields.empty()
            : HttpFields.of("Content-Type", type);
        boolean parsed = parser.parse(status, headers, HINT, Instant.EPOCH).bodyRetryAfter()
            .equals(java.util.Optional.of(Duration.ofSeconds(7)));
        assertThat(SignalParser.readsBody(status, headers))
            .as("readsBody(%d, %s)", status, type).isEqualTo(parsed);
        read += parsed ? 1 : 0;
      }
    }
    // JSON types, no type, text/plain: 8 of the 11 types on each of the 3 hint statuses.
    assertThat(read).as("combinations whose body is read").isEqualTo(3 * 8);
  }
}
