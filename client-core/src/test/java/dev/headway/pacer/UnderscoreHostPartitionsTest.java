package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.headway.ClientPolicy;
import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hosts with an underscore ({@code billing_api.internal}) are not server-based authorities to
 * {@link URI} ({@code getHost()} is null), yet OkHttp and Spring send to them. Before, every such
 * host fell into one partition {@code http://:80}: a {@code Retry-After: 600} from one service
 * refused calls to every other.
 */
@Timeout(30)
class UnderscoreHostPartitionsTest {
  static final URI BILLING = URI.create("http://billing_api.internal:8080/invoices");
  static final URI LEDGER = URI.create("http://ledger_api.internal:8080/entries");

  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2)).build();

  @Test
  void aRetryAfterFromOneUnderscoreHostDoesNotHoldAnother() throws Exception {
    Permit billing = pacer.acquire(RequestInfo.get(BILLING));
    billing.complete(429, HttpFields.of("Retry-After", "600"), null);

    Permit ledger = pacer.acquire(RequestInfo.get(LEDGER));
    assertThat(ledger.partition()).isEqualTo("http://ledger_api.internal:8080");
    ledger.complete(200, HttpFields.empty(), null);

    RateLimitedException refused = assertThrows(RateLimitedException.class,
        () -> pacer.acquire(RequestInfo.get(BILLING)));
    assertThat(refused.partition()).isEqualTo("http://billing_api.internal:8080");
  }

  @Test
  void thePortIsTheSchemesDefaultWhenNoneIsGivenAndUserInfoIsNotPartOfTheKey() throws Exception {
    Permit plain = pacer.acquire(RequestInfo.get(URI.create("https://Billing_API.internal/x")));
    Permit withUser = pacer.acquire(
        RequestInfo.get(URI.create("http://user:pw@billing_api.internal/x")));
    assertThat(plain.partition()).isEqualTo("https://billing_api.internal:443");
    assertThat(withUser.partition()).isEqualTo("http://billing_api.internal:80");
    plain.release();
    withUser.release();
  }

  @Test
  void quotaCanBeAskedOfAnUnderscoreHost() throws Exception {
    pacer.acquire(RequestInfo.get(BILLING))
        .complete(429, HttpFields.of("Retry-After", "600"), null);
    assertThat(pacer.quota(URI.create("http://billing_api.internal:8080/")).partition())
        .isEqualTo("http://billing_api.internal:8080");
    assertThat(pacer.quota(URI.create("http://billing_api.internal:8080/")).heldFor())
        .isPresent();
  }

  @Test
  void aPolicyCanBeDeclaredForAnUnderscoreHost() throws Exception {
    Pacer declared = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(2))
        .declare("http://billing_api.internal:8080", ClientPolicy.tokenBucket("tb", 1,
            Duration.ofMinutes(1)))
        .build();
    declared.acquire(RequestInfo.get(BILLING)).release();
    assertThat(declared.tryAcquire(RequestInfo.get(BILLING))).isEmpty();
    assertThat(declared.tryAcquire(RequestInfo.get(LEDGER))).isPresent();
  }
}
