package dev.headway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What a new user hits first: declared partitions, unusable URIs, a pacer's own text. */
@Timeout(30)
class PapercutsTest {
  static final URI API = URI.create("https://api.example.com/items");

  private final VirtualClock clock = VirtualClock.create();

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock);
  }

  /** Acquires {@code n} permits at once, then says whether one more still goes without a wait. */
  private static boolean goesNowAfter(Pacer pacer, URI uri, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      assertThat(pacer.tryAcquire(RequestInfo.get(uri))).isPresent().get()
          .satisfies(Permit::release);
    }
    return pacer.tryAcquire(RequestInfo.get(uri)).isPresent();
  }

  @Test
  void aPolicyDeclaredByHostOrOriginApplies() throws Exception {
    for (String name : new String[] {"api.example.com", "https://api.example.com",
        "HTTPS://API.Example.com:443/", " api.example.com:443 "}) {
      Pacer pacer = builder().declare(name, ClientPolicy.tokenBucket("tb", 2,
          Duration.ofMinutes(1))).build();
      assertThat(goesNowAfter(pacer, API, 2)).as(name).isFalse();
      assertThat(pacer.quota(API).policy("tb")).as(name).isPresent();
    }
  }

  @Test
  void aHostWithAnotherPortOrSchemeIsAnotherPartition() throws Exception {
    Pacer pacer = builder()
        .declare("api.example.com:8443", ClientPolicy.tokenBucket("tb", 1, Duration.ofMinutes(1)))
        .declare("http://localhost", ClientPolicy.tokenBucket("local", 1, Duration.ofMinutes(1)))
        .build();
    assertThat(goesNowAfter(pacer, API, 5)).isTrue();
    assertThat(goesNowAfter(pacer, URI.create("https://api.example.com:8443/x"), 1)).isFalse();
    assertThat(goesNowAfter(pacer, URI.create("http://localhost:80/x"), 1)).isFalse();
  }

  @Test
  void aPartitionThatCanNeverMatchIsRejectedSayingWhatWasExpected() {
    for (String name : new String[] {"https://api.example.com/v1", "api.example.com/v1",
        "https://api.example.com?x=1", "ftp://api.example.com", "mailto:ops@example.com",
        "https://user@api.example.com", "https://"}) {
      Pacer.Builder builder = builder().declare(name, ClientPolicy.tokenBucket("tb", 1,
          Duration.ofMinutes(1)));
      assertThatThrownBy(builder::build).as(name)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(name)
          .hasMessageContaining("expected a host (api.example.com)")
          .hasMessageContaining("origin (https://api.example.com");
    }
    assertThatThrownBy(() -> builder().declare(" ", ClientPolicy.tokenBucket("tb", 1,
        Duration.ofMinutes(1)))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blank");
  }

  @Test
  void aCustomResolversNamesAreKeptAsWritten() throws Exception {
    Pacer pacer = builder().partitionKeyResolver(PartitionKeyResolver.of(r -> r.uri().getHost()))
        .declare("api.example.com", ClientPolicy.tokenBucket("tb", 1, Duration.ofMinutes(1)))
        .build();
    assertThat(goesNowAfter(pacer, API, 1)).isFalse();
    assertThat(pacer.quota(API).partition()).isEqualTo("api.example.com");
  }

  @Test
  void quotaOfAUriWithoutHostIsAnError() {
    Pacer pacer = builder().build();
    assertThatThrownBy(() -> pacer.quota(URI.create("mailto:ops@example.com")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mailto:ops@example.com").hasMessageContaining("host");
    assertThatThrownBy(() -> pacer.quota(URI.create("/items")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("absolute");
    assertThatThrownBy(() -> pacer.quota(URI.create("file:///etc/hosts")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host");
    assertThat(pacer.partitionCount()).isZero();
  }

  @Test
  void aPacerPrintsItsConfigurationAndPartitionCount() throws Exception {
    Pacer pacer = builder().maxWait(Duration.ofMillis(1500)).build();
    pacer.tryAcquire(RequestInfo.get(API)).orElseThrow().release();
    pacer.tryAcquire(RequestInfo.get(URI.create("https://other.example.com/"))).orElseThrow()
        .release();
    assertThat(pacer).hasToString("Pacer[strategy=burstThenSpread(0.2), jitter=full,"
        + " maxWait=1.5 s, maxAttempts=3, partitions=2]");
  }
}
