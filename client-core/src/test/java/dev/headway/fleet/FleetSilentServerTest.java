package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet of 20 instances of 4 closed-loop callers against a token bucket that says nothing of
 * its limits (100 requests, one back every 600 ms; a bare 429, or one with {@code Retry-After}),
 * 50 ms to the server, the store 1 ms away, 120 s of virtual time. A fleet of many instances
 * should pay about what one instance pays to discover the limit, not one discovery per instance.
 */
@Timeout(120)
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
    int callers = 4;
    List<CompletableFuture<Permit>> calls = new ArrayList<>();
    long[] grantedAt = new long[instances * callers];
    RateLimitSignal[] answers = new RateLimitSignal[instances * callers];
    java.util.Arrays.fill(grantedAt, -1);
    for (int i = 0; i < instances; i++) {
      Pacer p = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i).store(store.instance("pod-" + i)).build();
      pacers.add(p);
      for (int c = 0; c < callers; c++) {
        calls.add(p.acquireAsync(GET, Duration.ofSeconds(30)));
      }
    }
    for (long ms = 1; ms <= seconds * 1000; ms++) {
      clock.advance(Duration.ofMillis(1));
      for (int c = 0; c < calls.size(); c++) {
        CompletableFuture<Permit> call = calls.get(c);
        if (!call.isDone()) {
          continue;
        }
        if (call.isCompletedExceptionally()) {
          calls.set(c, pacers.get(c / callers).acquireAsync(GET, Duration.ofSeconds(30)));
          continue;
        }
        if (grantedAt[c] < 0) {
          grantedAt[c] = ms;
        }
        // The server counts the request half way there and answers a round trip after it went.
        if (ms == grantedAt[c] + ROUND_TRIP_MS / 2) {
          answers[c] = server.handle();
        } else if (ms >= grantedAt[c] + ROUND_TRIP_MS) {
          call.join().complete(answers[c]);
          grantedAt[c] = -1;
          calls.set(c, pacers.get(c / callers).acquireAsync(GET, Duration.ofSeconds(30)));
        }
      }
    }
    return server;
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
}
