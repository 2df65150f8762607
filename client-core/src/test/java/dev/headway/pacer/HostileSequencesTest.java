package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.QuotaSnapshot;
import dev.headway.RequestInfo;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sequences of responses a hostile (or merely odd) server can send, and what they must not do
 * to the rest of the client's state: names that change on every response, partition keys that
 * rotate.
 */
@Timeout(60)
class HostileSequencesTest {
  static final RequestInfo A = RequestInfo.get(URI.create("https://a.example.com/items"));
  static final RequestInfo B = RequestInfo.get(URI.create("https://b.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  @BeforeEach
  void forget() {
    CapturedLogs.clear();
  }

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none())
        .maxWait(Duration.ofSeconds(5));
  }

  private static String pk(int i) {
    return ":" + Base64.getEncoder().encodeToString(("user-" + i).getBytes(StandardCharsets.UTF_8))
        + ":";
  }

  @Test
  void aServerRotatingItsPartitionKeyNeverEvictsAnotherOrigin() throws Exception {
    Pacer pacer = builder().maxPartitions(100).build();
    // B's quota is spent for the next hour (a count, not a hold: B's partition is idle).
    pacer.tryAcquire(B).orElseThrow().complete(200,
        HttpFields.of("RateLimit-Policy", "\"b\";q=10;w=3600", "RateLimit", "\"b\";r=0;t=3600"),
        null);
    assertThat(pacer.tryAcquire(B)).isEmpty();

    for (int i = 0; i < 200; i++) {
      clock.advance(Duration.ofMillis(10));
      pacer.acquire(A).complete(200, HttpFields.of(
          "RateLimit-Policy", "\"u\";q=1000;w=60;pk=" + pk(i),
          "RateLimit", "\"u\";r=999;t=60;pk=" + pk(i)), null);
    }

    assertThat(pacer.tryAcquire(B)).as("B is still spent").isEmpty();
    assertThat(pacer.partitions()).extracting(QuotaSnapshot::partition)
        .filteredOn(p -> p.startsWith("https://a.example.com:443|pk="))
        .hasSizeLessThanOrEqualTo(4);
    // The partition key the server sent last is the one in use.
    assertThat(pacer.quota(A.uri()).policy("u").orElseThrow().remaining().getAsLong())
        .isEqualTo(999);
  }

  @Test
  void warningsOfRotatingPartitionKeysAreQuietedWithTheirOrigin() throws Exception {
    Pacer pacer = builder().build();
    for (int i = 0; i < 200; i++) {
      clock.advance(Duration.ofMillis(10));
      pacer.acquire(A).complete(200, HttpFields.of(
          "RateLimit-Policy", "\"u\";q=1000;w=60;pk=" + pk(i),
          "RateLimit", "\"u\";r=99999999999999;t=60;pk=" + pk(i)), null);
    }
    assertThat(CapturedLogs.lines("dev.headway.pacer"))
        .filteredOn(l -> l.level() == Level.WARNING).hasSize(1);
  }

  @Test
  void aNewPolicyNameOnEveryResponseKeepsTheStateBounded() throws Exception {
    Pacer pacer = builder().build();
    for (int i = 0; i < 20_000; i++) {
      pacer.acquire(A).complete(200, HttpFields.of(
          "RateLimit-Policy", "\"p" + i + "\";q=1000000;w=60",
          "RateLimit", "\"p" + i + "\";r=999999;t=60"), null);
    }
    QuotaSnapshot quota = pacer.quota(A.uri());
    assertThat(quota.policies()).hasSizeLessThanOrEqualTo(16);
    assertThat(quota.policy("p19999")).isPresent();
  }
}
