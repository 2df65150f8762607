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
   * Runs {@code instances} pacers of {@code callers} callers for {@code seconds} against
   * {@code server}, 20 ms away, sharing the store or not; returns the server.
   */
  private SilentWindow runWindow(SilentWindow server, int instances, int callers, long seconds,
      boolean shared) {
    List<Pacer> pacers = SilentBucket.pacers(clock, store, instances, shared);
    return server.drive(pacers, callers, seconds, 20);
  }

  /**
   * Twenty instances of 2 callers against a fixed window of 100 per 60 s that answers bare 429s
   * (no {@code Retry-After}), 20 ms away, for 130 s (three windows). Each instance's own backoff
   * starts at its own first 429, one second: with the instances taking turns to draw the 429s,
   * the fleet was held for one second again and again while the window stayed spent, and the
   * instances let go together at each hold's end went on drawing them (70 429s); its first
   * burst was every instance's own probes of first contact at once. The store then cost the
   * fleet a quarter of its goodput (228 admitted against 286 without it). Now a bare 429 to the
   * first requests after the fleet's hold doubles the fleet's hold, and the instances let go by
   * another's probe of first contact start on the fleet's bound, not on probes of their own:
   * 300 admitted (all three windows), 62 429s (178 without the store).
   */
  @Test
  void aFleetBacksOffFromItsHoldAgainstABareWindow() {
    FleetSilentServerTest without = new FleetSilentServerTest();
    SilentWindow alone = without.runWindow(new SilentWindow(without.clock, 100,
        Duration.ofSeconds(60)), 20, 2, 130, false);
    SilentWindow shared = runWindow(new SilentWindow(clock, 100, Duration.ofSeconds(60)), 20, 2,
        130, true);
    assertThat(shared.ok).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        shared.throttled, alone.ok, alone.throttled).isGreaterThanOrEqualTo(alone.ok);
    assertThat(shared.throttled).as("429s with the store, against %d without", alone.throttled)
        .isLessThanOrEqualTo(alone.throttled / 2);
  }
}
