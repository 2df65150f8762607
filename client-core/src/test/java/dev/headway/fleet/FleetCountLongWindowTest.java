package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.RequestInfo;
import dev.headway.SanityCaps;
import dev.headway.SignalParser;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A user who raised {@link SanityCaps#maxWindow()} past 292 years (the longest {@link Duration}
 * whose nanoseconds fit a {@code long}) and a server naming its partition key ({@code pk}) with
 * a policy window that long: a pacer with a store reads each response's count as it reads any
 * other. Virtual time.
 */
@Timeout(60)
class FleetCountLongWindowTest {
  private static final URI API = URI.create("https://api.example.com/items");
  private static final String PK = ";pk=:dXNlci1h:";

  private final VirtualClock clock = VirtualClock.create();

  @BeforeEach
  void forgetLogs() {
    CapturedLogs.clear();
  }

  /**
   * Before, the policy's window (317 years) overflowed {@code Duration.toNanos()} while the fleet
   * read the count: the pacer swallowed the exception (a WARNING) and with it the rest of every
   * response, so the server partition never took its count.
   */
  @Test
  void aWindowPastTheNanosecondRangeLeavesEveryCountRead() throws Exception {
    SanityCaps caps = new SanityCaps(Duration.ofDays(1), Duration.ofDays(1), 1_000_000L,
        1_000_000L, Duration.ofDays(365L * 1_000));
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock).build();
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .signalParser(SignalParser.builder().caps(caps).build())
        .store(store.instance("p")).build();
    for (long remaining = 4; remaining >= 2; remaining--) {
      Permit permit = pacer.acquireAsync(RequestInfo.get(API), Duration.ofSeconds(30))
          .toCompletableFuture().getNow(null);
      assertThat(permit).as("admitted at once").isNotNull();
      clock.advance(Duration.ofMillis(10));
      permit.complete(200, HttpFields.of(
          "RateLimit-Policy", "\"default\";q=5;w=10000000000" + PK,
          "RateLimit", "\"default\";r=" + remaining + ";t=9" + PK), null);
      List<PolicySnapshot> policies = pacer.quota(API).policies();
      assertThat(policies).as("%s", policies).extracting(PolicySnapshot::remaining)
          .containsExactly(OptionalLong.of(remaining));
    }
    List<CapturedLogs.Line> warnings = CapturedLogs.lines("dev.headway").stream()
        .filter(l -> l.level() == Level.WARNING).toList();
    assertThat(warnings).as("%s", warnings).isEmpty();
  }
}
