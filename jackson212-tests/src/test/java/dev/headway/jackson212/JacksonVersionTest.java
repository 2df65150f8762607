package dev.headway.jackson212;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.cfg.PackageVersion;
import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Proves that this module's tests run on the Jackson they are meant for (the parent's jackson-bom
 * could otherwise win silently), and that body hints work on it.
 */
class JacksonVersionTest {
  @Test
  void theClassPathHoldsTheExpectedJackson() {
    String expected = System.getProperty("headway.jackson.expectedLine", "2.12.");
    String databind = PackageVersion.VERSION.toString();
    String core = com.fasterxml.jackson.core.json.PackageVersion.VERSION.toString();
    System.out.println("jackson-databind " + databind + ", jackson-core " + core);
    assertThat(databind).as("jackson-databind on the test class path").startsWith(expected);
    assertThat(core).as("jackson-core on the test class path").startsWith(expected);
  }

  @Test
  void bodyHintsAreReadOnThisJackson() {
    byte[] body = ("{\"error\": {\"code\": 429, \"status\": \"RESOURCE_EXHAUSTED\","
        + " \"details\": [{\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\","
        + " \"retryDelay\": \"12s\"}]}}").getBytes(StandardCharsets.UTF_8);
    RateLimitSignal signal = SignalParser.create().parse(429,
        HttpFields.of("Content-Type", "application/json"), body, Instant.EPOCH);

    assertThat(signal.warnings()).isEmpty();
    assertThat(signal.bodyRetryAfter()).contains(Duration.ofSeconds(12));
    assertThat(signal.nextRequestDelay()).contains(Duration.ofSeconds(12));
  }
}
