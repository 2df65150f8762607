package dev.headway.internal.pacer;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaUnit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** What the fast lane's tests share: one route, a count, and a look inside a permit. */
final class LaneFixture {
  static final URI ITEMS = URI.create("https://api.example.com/items");
  static final RequestInfo GET = RequestInfo.get(ITEMS);

  private LaneFixture() {}

  /** A response's signal: policy "default" of {@code quota} per minute, {@code remaining} left. */
  static RateLimitSignal limit(long quota, long remaining) {
    return new RateLimitSignal(200,
        List.of(new QuotaPolicy("default", quota, QuotaUnit.REQUESTS,
            Optional.of(Duration.ofSeconds(60)), Optional.empty(), "ietf")),
        List.of(new QuotaLimit("default", remaining, Optional.of(Duration.ofSeconds(600)),
            Optional.empty(), "ietf")),
        Optional.empty(), Optional.empty(), Optional.empty(), List.of(), List.of("ietf"),
        List.of(), false);
  }

  /** The partition of {@link #GET}, found through a permit taken and given back. */
  static Partition partition(Pacer pacer) throws Exception {
    Permit permit = pacer.acquire(GET);
    Partition base = ((PermitImpl) permit).base;
    permit.release();
    return base;
  }

  /** Whether {@code permit} is still the lane's (not adopted by the monitor). */
  static boolean inLane(Permit permit) {
    return ((PermitImpl) permit).state == PermitImpl.LANE;
  }

  /** The permit's commit number. */
  static long seq(Permit permit) {
    return ((PermitImpl) permit).seq;
  }

  /** The "default" policy as {@code quota(uri)} shows it. */
  static PolicySnapshot policy(Pacer pacer) {
    return pacer.quota(ITEMS).policy("default").orElseThrow();
  }
}
