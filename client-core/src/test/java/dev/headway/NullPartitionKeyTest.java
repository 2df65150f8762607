package dev.headway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A resolver with no key for a request (a tenant resolver given a request without the tenant
 * header) returns null: the request goes to its origin's partition, and {@code quota(uri)}
 * answers for that partition instead of throwing.
 */
@Timeout(30)
class NullPartitionKeyTest {
  static final URI API = URI.create("https://api.example.com/items");
  static final URI OTHER = URI.create("https://other.example.com/items");

  private final VirtualClock clock = VirtualClock.create();

  /** Keys a request by host and tenant header; null without the header. */
  private static String tenantOrNull(RequestInfo r) {
    return r.headers().firstValue("X-Tenant").map(t -> r.uri().getHost() + "#" + t).orElse(null);
  }

  private Pacer pacer(PartitionKeyResolver resolver) {
    // A custom resolver's declared names are kept as written: here origins, as origin() spells
    // them.
    Duration minute = Duration.ofMinutes(1);
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .partitionKeyResolver(resolver)
        .declare("https://api.example.com:443", ClientPolicy.tokenBucket("api", 1, minute))
        .declare("https://other.example.com:443", ClientPolicy.tokenBucket("other", 1, minute))
        .build();
  }

  @Test
  void aNullKeyFromOfIsTheRequestsOrigin() throws Exception {
    assertNullKeyIsTheOrigin(pacer(PartitionKeyResolver.of(NullPartitionKeyTest::tenantOrNull)));
  }

  @Test
  void aNullKeyFromAResolverOfYourOwnIsTheRequestsOrigin() throws Exception {
    PartitionKeyResolver own = NullPartitionKeyTest::tenantOrNull;
    assertNullKeyIsTheOrigin(pacer(own));
  }

  private static void assertNullKeyIsTheOrigin(Pacer pacer) throws Exception {
    assertThat(pacer.quota(OTHER).partition()).isEqualTo("https://other.example.com:443");
    Permit first = pacer.acquire(RequestInfo.get(API), Duration.ZERO);
    assertThat(first.partition()).isEqualTo("https://api.example.com:443");
    first.complete(200, HttpFields.empty(), null);
    // The origin's declared quota (1 a minute) applies: a second call must wait.
    assertThat(pacer.tryAcquire(RequestInfo.get(API))).isEmpty();
    // Another host without a key is another partition: its own quota is untouched.
    assertThat(pacer.tryAcquire(RequestInfo.get(OTHER))).isPresent().get()
        .satisfies(p -> assertThat(p.partition()).isEqualTo("https://other.example.com:443"))
        .satisfies(p -> p.complete(200, HttpFields.empty(), null));
    QuotaSnapshot quota = pacer.quota(API);
    assertThat(quota.partition()).isEqualTo("https://api.example.com:443");
    assertThat(quota.policy("api")).isPresent();
    assertThat(pacer.partitions()).extracting(QuotaSnapshot::partition)
        .containsExactly("https://api.example.com:443", "https://other.example.com:443");
  }
}
