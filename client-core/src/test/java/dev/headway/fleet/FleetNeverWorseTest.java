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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store never makes a fleet worse off than the same instances without one, and costs an
 * instance that is alone nothing. The server answers only {@code 429} with {@code Retry-After}
 * (in whole seconds, to the end of its window) past a fixed window of 20 requests per 2 s, a
 * Django-REST-framework-style throttle; every request takes 20 ms. Single-threaded, virtual time
 * (1 ms steps, store round trip 1 ms).
 */
@Timeout(300)
class FleetNeverWorseTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long RTT_MS = 20;

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();

  /** A fixed window of 20 per 2 s: a bare 200, or a 429 with {@code Retry-After}. */
  private final class Window {
    private static final long QUOTA = 20;
    private static final long WINDOW_NANOS = 2_000_000_000L;
    private long window = -1;
    private long used;
    long ok;
    long throttled;

    RateLimitSignal handle() {
      long now = clock.read();
      long w = now / WINDOW_NANOS;
      if (w != window) {
        window = w;
        used = 0;
      }
      if (used < QUOTA) {
        used++;
        ok++;
        return signal(200, Optional.empty());
      }
      throttled++;
      long left = (w + 1) * WINDOW_NANOS - now;
      long seconds = Math.max(1, (left + 999_999_999L) / 1_000_000_000L);
      return signal(429,
          bareWindow ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds)));
    }
  }

  /** Whether the window answers bare 429s (no {@code Retry-After}). */
  private boolean bareWindow;

  private static RateLimitSignal signal(int status, Optional<Duration> retryAfter) {
    return new RateLimitSignal(status, List.of(), List.of(), retryAfter, Optional.empty(),
        Optional.empty(), List.of(), List.of(), List.of(), status == 429);
  }

  /** One caller: its call in flight, and when the server answers its permit. */
  private static final class Caller {
    final Pacer pacer;
    CompletableFuture<Permit> call;
    long answerAtMs = -1;

    Caller(Pacer pacer) {
      this.pacer = pacer;
    }
  }

  /**
   * Runs {@code instances} pacers of {@code callers} callers each for {@code seconds}, sharing
   * the store or not; returns the server.
   */
  private Window run(int instances, int callers, long seconds, boolean shared) {
    Window server = new Window();
    List<Caller> all = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      Pacer.Builder b = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .jitterSeed(i);
      if (shared) {
        b.store(store.instance("pod-" + i));
      }
      Pacer p = b.build();
      for (int c = 0; c < callers; c++) {
        Caller caller = new Caller(p);
        caller.call = p.acquireAsync(GET, Duration.ofSeconds(30));
        all.add(caller);
      }
    }
    for (long ms = 1; ms <= seconds * 1000; ms++) {
      clock.advance(Duration.ofMillis(1));
      for (Caller c : all) {
        if (c.answerAtMs >= 0) {
          if (ms >= c.answerAtMs) {
            c.call.join().complete(server.handle());
            c.answerAtMs = -1;
            c.call = c.pacer.acquireAsync(GET, Duration.ofSeconds(30));
          }
        } else if (c.call.isDone()) {
          if (c.call.isCompletedExceptionally()) {
            c.call = c.pacer.acquireAsync(GET, Duration.ofSeconds(30));
          } else {
            c.answerAtMs = ms + RTT_MS;
          }
        }
      }
    }
    return server;
  }

  /**
   * Runs {@code instances} pacers of 4 callers for {@code seconds} against {@code server}, 3 ms
   * away (counted half way there), sharing the store or not.
   */
  private SilentBucket runBucket(SilentBucket server, int instances, long seconds,
      boolean shared) {
    return runBucket(server, instances, seconds, shared, 3);
  }

  /** As above, {@code roundTripMs} away. */
  private SilentBucket runBucket(SilentBucket server, int instances, long seconds,
      boolean shared, long roundTripMs) {
    List<Pacer> pacers = SilentBucket.pacers(clock, store, instances, shared);
    return server.drive(pacers, 4, seconds, roundTripMs);
  }

  /**
   * A fast bucket that says nothing (46 requests, one back every 1/46 s; bare 429s), 3 ms away:
   * ten instances of 4 callers for 10 s. Without the store each instance's own learner climbs
   * back from its first 429 within a second or two (439 admitted, 25 429s). With it, the fleet's
   * budget starts at one request per hold (the instance's own backoff, 1 s); it was raised as a
   * cut rate is, by 1/64 once per 4 s, and the whole fleet stayed at about one request a second:
   * 58 admitted (13%; the simulator's seed 9317 draws this server). Now the first rate is a
   * floor, doubled once per its hold until a 429 answers it: 286 admitted (65%), 10 429s. The
   * rest is the first seconds: only the instance that drew the first 429 raises it that fast.
   */
  @Test
  void aFleetBudgetStartedByABareBucketClimbsOnceAHold() {
    Duration refill = Duration.ofNanos(1_000_000_000L / 46);
    FleetNeverWorseTest without = new FleetNeverWorseTest();
    SilentBucket alone = without.runBucket(new SilentBucket(without.clock, 46, refill, false),
        10, 10, false);
    SilentBucket shared = runBucket(new SilentBucket(clock, 46, refill, false), 10, 10, true);
    assertThat(shared.ok).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        shared.throttled, alone.ok, alone.throttled).isGreaterThanOrEqualTo(alone.ok * 60 / 100);
    assertThat(shared.throttled).as("429s with the store, against %d without", alone.throttled)
        .isLessThanOrEqualTo(alone.throttled);
  }

  /**
   * Before, two instances sharing a store got an eighth of what they got without it (62 against
   * 528 admitted in a minute): the fleet's learned budget started at one request per hold (0.5 a
   * second; the server allows 10), raised by 1/64 every 8 requests at that rate it never came
   * back, and one instance's lease held the budget's 2 units until it ended. Now 491 against 544
   * (90%), 12 429s against 12. With the rate discovered between reopenings (merged after the
   * fleet's learner) it had fallen to 428 (79%) with 13 429s: an instance that learned of
   * another's cut of the fleet's rate took the requests it had sent during that cut's hold for
   * a new overshoot and halved the rate again (and a lower rate set from an older one counted
   * as a cut). Measured again in the sixteenth session (main at b73e4c1, whose learner changes
   * moved the instances without a store): 539 with the store against 470 without, 12 429s each.
   * With that session's learner for windows told by {@code Retry-After} merged too, which made
   * the instances without a store better: 565 against 569, 8 429s each. So the bound stays what
   * it was (at least 90% of without, no more 429s): two with the store are about as good as two
   * without, not better.
   */
  @Test
  void twoInstancesGetAtLeastWhatTheyGetWithoutTheStore() {
    Window alone = new FleetNeverWorseTest().run(2, 8, 60, false);
    Window shared = run(2, 8, 60, true);
    assertThat(shared.ok).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        shared.throttled, alone.ok, alone.throttled).isGreaterThanOrEqualTo(alone.ok * 90 / 100);
    assertThat(shared.throttled).as("429s with the store, against %d without", alone.throttled)
        .isLessThanOrEqualTo(Math.max(alone.throttled, 10));
  }

  /**
   * The same window answering bare 429s (no {@code Retry-After}), two instances of 8 callers for
   * a minute: 522 admitted with the store (15 429s) against 542 without (18 429s). A bare 429's
   * hold is the instance's own doubling backoff (1, 2, 4 ... s), shared with the fleet; sharing
   * only its first step (each instance backing off further on its own) was tried: 474 (16 429s),
   * though on the simulator's fixed grid it brought the fixed window without headers at 2
   * instances from 90.9% to 100% of its goodput.
   */
  @Test
  void twoInstancesAgainstABareWindowGetWhatTheyGetWithoutTheStore() {
    FleetNeverWorseTest without = new FleetNeverWorseTest();
    without.bareWindow = true;
    Window alone = without.run(2, 8, 60, false);
    bareWindow = true;
    Window shared = run(2, 8, 60, true);
    assertThat(shared.ok).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        shared.throttled, alone.ok, alone.throttled).isGreaterThanOrEqualTo(alone.ok * 90 / 100);
    assertThat(shared.throttled).as("429s with the store, against %d without", alone.throttled)
        .isLessThanOrEqualTo(alone.throttled);
  }

  /**
   * A fleet budget that learned too low comes back within seconds: two new instances finding
   * the budget the last two left (cut by their first 429s) get at least two thirds of what the
   * server allows in their first 30 s. Before, 29 of 300.
   */
  @Test
  void aFleetBudgetThatLearnedTooLowRecoversMultiplicatively() {
    Window first = run(2, 8, 30, true);
    long before = first.ok;
    Window rest = run(2, 8, 30, true);
    assertThat(before).isPositive();
    assertThat(rest.ok).as("admitted in the second half minute (the server allows 300)")
        .isGreaterThanOrEqualTo(200);
  }

  /**
   * One instance with the store gets what it gets without it: 462 against 463, 9 429s each.
   * Before, 439 (95%): in its first second, before the store's answers had shown it alone, a
   * request due later was decided again at its time instead of committed, so the pacer's own
   * learned rate saw other first cycles and discovered a lower rate (7.2 a second against 8.1).
   */
  @Test
  void aLoneInstanceGetsWhatItGetsWithoutTheStore() {
    Window alone = new FleetNeverWorseTest().run(1, 8, 60, false);
    Window shared = run(1, 8, 60, true);
    assertThat(shared.ok).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        shared.throttled, alone.ok, alone.throttled).isGreaterThanOrEqualTo(alone.ok * 98 / 100);
    assertThat(shared.throttled).as("429s with the store, against %d without", alone.throttled)
        .isLessThanOrEqualTo(alone.throttled + 2);
  }
  /**
   * A server that never refuses the fleet and says nothing (a bucket of a million, 50 ms away):
   * twenty instances of 4 callers for 10 s. Without the store each instance's own bound on
   * requests in flight to a server that said nothing grows by one per round trip and meets its
   * 4 callers within a few round trips. With it, the fleet's bound grew by one per round trip
   * for the whole fleet: 80 in flight only after 80 round trips and more, and only then did the
   * bound end (nobody held back): 11,721 admitted against 15,600 (75%). Now it grows by about
   * the square root of the instances per round trip: 14,820 (95%).
   */
  @Test
  void aFleetThatIsNeverRefusedRampsUpWithinAFewRoundTrips() {
    Duration refill = Duration.ofMillis(1);
    FleetNeverWorseTest without = new FleetNeverWorseTest();
    SilentBucket alone = without.runBucket(
        new SilentBucket(without.clock, 1_000_000, refill, false), 20, 10, false, 50);
    SilentBucket shared = runBucket(new SilentBucket(clock, 1_000_000, refill, false), 20, 10,
        true, 50);
    assertThat(alone.throttled).isZero();
    assertThat(shared.throttled).isZero();
    assertThat(shared.ok).as("admitted with the store against %d without", alone.ok)
        .isGreaterThanOrEqualTo(alone.ok * 90 / 100);
  }

  /**
   * A bucket that says nothing (bare 429s), 300 ms away, that the fleet runs dry: 200 requests,
   * one back every 10 ms; twenty instances of 4 callers for 20 s. Once the fleet's budget had
   * learned a rate near the server's, a refused instance asked the store again when the rate had
   * given a unit back plus an allowance for a server's count being older than its request (a
   * quarter of the round trip, at most 50 ms): for the fleet's own budget, which holds two units
   * and no server count, every refused instance came back 50 ms late, together, and found two
   * units. The fleet was held to a fraction of the budget's rate it never tested: 1,360 admitted
   * (43 429s) against 2,161 without the store (97 429s). Now the allowance is at most the time
   * the budget's two units take to come back: 1,485 (43 429s). The rest is the budget itself.
   */
  @Test
  void aFleetBudgetIsLentAtItsRateAFarServer() {
    Duration refill = Duration.ofMillis(10);
    FleetNeverWorseTest without = new FleetNeverWorseTest();
    SilentBucket alone = without.runBucket(new SilentBucket(without.clock, 200, refill, false),
        20, 20, false, 300);
    SilentBucket shared = runBucket(new SilentBucket(clock, 200, refill, false), 20, 20, true,
        300);
    assertThat(shared.ok).as("admitted with the store (%d 429s) against %d without (%d 429s)",
        shared.throttled, alone.ok, alone.throttled).isGreaterThanOrEqualTo(alone.ok * 66 / 100);
    assertThat(shared.throttled).as("429s with the store, against %d without", alone.throttled)
        .isLessThanOrEqualTo(alone.throttled);
  }
}
