package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet of 20 instances of 4 closed-loop callers against a token bucket that says nothing of
 * its limits (100 requests, one back every 600 ms; a bare 429, or one with {@code Retry-After}),
 * 50 ms to the server, the store 1 ms away, 120 s of virtual time. A fleet of many instances
 * should pay about what one instance pays to discover the limit, not one discovery per instance.
 */
@Timeout(300)
class FleetSilentServerTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long ROUND_TRIP_MS = 50;

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  /** Runs {@code instances} pacers of 4 callers for {@code seconds}; returns the server. */
  private SilentBucket run(int instances, long seconds, boolean retryAfter) {
    SilentBucket server = new SilentBucket(clock, 100, Duration.ofMillis(600), retryAfter);
    List<Pacer> pacers = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      pacers.add(Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i).store(store.instance("pod-" + i)).build());
    }
    return server.drive(pacers, 4, seconds, ROUND_TRIP_MS);
  }

  /**
   * Before, each instance kept its own bound on requests in flight to a server that had said
   * nothing yet, so 20 instances of 4 callers had all 80 in flight when the bucket ran dry: 80
   * 429s in the first round trip past it. Now the fleet keeps one instance's bound, each
   * instance a share of it, and a bare 429 starts the fleet's own budget at one request per
   * hold, as one instance starts its own pace: after each hold one or two requests go, not
   * every instance at once.
   */
  @Test
  void aFleetDiscoversABareBucketAboutOnce() {
    SilentBucket server = run(20, 120, false);
    assertThat(server.firstBurst).as("429s when the bucket first ran dry")
        .isLessThanOrEqualTo(35);
    assertThat(server.ok).as("the bucket gives 100 and then 1.67 a second")
        .isGreaterThanOrEqualTo(250);
  }

  /** The same with {@code Retry-After} on every 429. */
  @Test
  void aFleetDiscoversATellingBucketAboutOnce() {
    SilentBucket server = run(20, 120, true);
    assertThat(server.firstBurst).as("429s when the bucket first ran dry")
        .isLessThanOrEqualTo(35);
    assertThat(server.ok).as("the bucket gives 100 and then 1.67 a second")
        .isGreaterThanOrEqualTo(250);
  }

  /**
   * Twenty instances of 2 callers against a fixed window of 100 per 60 s that answers bare 429s
   * (no {@code Retry-After}), for 130 s (three windows), at round trips of 15, 20, 25, 30 and
   * 40 ms. Each instance's own backoff starts at its own first 429, one second: with the
   * instances taking turns to draw the 429s, the fleet was held for one second again and again
   * while the window stayed spent, and the instances let go together at each hold's end went on
   * drawing them; its first burst was every instance's own probes of first contact at once. The
   * store then cost the fleet a quarter of its goodput. Now a bare 429 to the first requests
   * after the fleet's hold doubles the fleet's hold, and the instances let go by another's probe
   * of first contact start on the fleet's bound, not on probes of their own. At one round trip
   * the fleet's goodput depends on where a doubled hold lands against the window's reset (a 429
   * two seconds before it holds the fleet 30 s: 200 or 300 admitted, two windows or three), so
   * the five round trips are summed: 1,137 admitted and 267 429s (1,226 and 890 without the
   * store; before the fleet's first 429 held the instances waiting under its first bound, 1,152
   * and 291).
   */
  @Test
  void aFleetBacksOffFromItsHoldAgainstABareWindow() {
    long shared = 0;
    long sharedThrottled = 0;
    long alone = 0;
    long aloneThrottled = 0;
    for (long roundTripMs : new long[] {15, 20, 25, 30, 40}) {
      for (boolean withStore : new boolean[] {true, false}) {
        FleetSilentServerTest run = new FleetSilentServerTest();
        SilentWindow server = new SilentWindow(run.clock, 100, Duration.ofSeconds(60));
        server.drive(SilentBucket.pacers(run.clock, run.store, 20, withStore), 2, 130,
            roundTripMs);
        if (withStore) {
          shared += server.ok;
          sharedThrottled += server.throttled;
        } else {
          alone += server.ok;
          aloneThrottled += server.throttled;
        }
      }
    }
    assertThat(shared).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        sharedThrottled, alone, aloneThrottled).isGreaterThanOrEqualTo(alone * 90 / 100);
    assertThat(sharedThrottled).as("429s with the store, against %d without", aloneThrottled)
        .isLessThanOrEqualTo(aloneThrottled / 2);
  }
}
