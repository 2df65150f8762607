package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.RequestInfo;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a route keeps of the policies its responses named. */
class RouteBoundsTest {
  @Test
  void aRouteGovernsOnlyPoliciesItsPartitionStillHas() {
    Partition partition = new Partition("k", null, 0);
    RequestInfo request = RequestInfo.get(URI.create("https://a.example.com/items"));
    PermitImpl permit = new PermitImpl(null, partition, 1, 0, 0, request, null);
    Route route = partition.routes.route(permit, partition, 0);
    for (int i = 0; i < 40_000; i++) {
      route.add(partition.serverPolicy("p" + i, null, "ietf", i));
    }
    List<PolicyState> kept = Arrays.asList(partition.policies());
    assertThat(kept).hasSize(Partition.MAX_POLICIES);
    assertThat(route.governs).hasSizeLessThanOrEqualTo(Partition.MAX_POLICIES)
        .allMatch(kept::contains);
  }

  @Test
  void aPolicyRemovedFromThePartitionLeavesEveryRoute() {
    Partition partition = new Partition("k", null, 0);
    RequestInfo request = RequestInfo.get(URI.create("https://a.example.com/items"));
    PermitImpl permit = new PermitImpl(null, partition, 1, 0, 0, request, null);
    Route route = partition.routes.route(permit, partition, 0);
    ServerPolicy p = partition.serverPolicy("p", null, "ietf", 0);
    route.add(p);
    partition.remove(p);
    assertThat(route.governs).isEmpty();
    assertThat(route.learned()).isFalse();
  }
}
