package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacerEvent;
import dev.headway.Permit;
import dev.headway.PolicySnapshot;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rate the pacer learns when a server says nothing about its quota: only {@code Retry-After}
 * on its 429s, or nothing at all. Virtual time throughout.
 */
@Timeout(30)
class LearnedRateTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));
  static final URI HOST = URI.create("https://api.example.com/");
  static final long SECOND = 1_000_000_000L;

  private final VirtualClock clock = VirtualClock.create();

  private Pacer.Builder builder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitter(Jitter.none());
  }

  private static RateLimitSignal throttled(int status, long retryAfterSeconds) {
    return Signals.throttled(status, retryAfterSeconds < 0 ? Optional.empty()
        : Optional.of(Duration.ofSeconds(retryAfterSeconds)), List.of(), Optional.empty());
  }

  private static List<Permit> granted(List<CompletableFuture<Permit>> futures) {
    return futures.stream().filter(f -> f.isDone() && !f.isCompletedExceptionally())
        .map(CompletableFuture::join).toList();
  }

  private Optional<PolicySnapshot> learned(Pacer pacer) {
    return pacer.quota(HOST).policies().stream().filter(PolicySnapshot::learned).findFirst();
  }

  /**
   * A token bucket of {@code capacity} that gets one token back every {@code refillMillis},
   * answering a 429 with a whole-second {@code Retry-After} (or none) and nothing else.
   */
  static final class Bucket implements Server {
    final double capacity;
    final long refillNanos;
    final boolean retryAfter;
    double tokens;
    long last;

    Bucket(double capacity, long refillMillis, boolean retryAfter) {
      this.capacity = capacity;
      this.refillNanos = refillMillis * 1_000_000L;
      this.retryAfter = retryAfter;
      this.tokens = capacity;
    }

    @Override
    public RateLimitSignal handle(long now) {
      tokens = Math.min(capacity, tokens + (double) (now - last) / refillNanos);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return RateLimitSignal.none(200);
      }
      long wait = (long) Math.ceil((1 - tokens) * refillNanos);
      return throttled(429, retryAfter ? (wait + SECOND - 1) / SECOND : -1);
    }
  }

  /**
   * A GCRA of one request every {@code emissionMillis} with a burst of {@code burst}, answering
   * a 429 with its exact wait rounded up to whole seconds as {@code Retry-After}, and nothing
   * else.
   */
  static final class Gcra implements Server {
    final long emissionNanos;
    final long toleranceNanos;
    long tat = Long.MIN_VALUE;

    Gcra(long emissionMillis, long burst) {
      this.emissionNanos = emissionMillis * 1_000_000L;
      this.toleranceNanos = emissionNanos * (burst - 1);
    }

    @Override
    public RateLimitSignal handle(long now) {
      long t = Math.max(tat, now);
      if (t - now <= toleranceNanos) {
        tat = t + emissionNanos;
        return RateLimitSignal.none(200);
      }
      long wait = t - toleranceNanos - now;
      return throttled(429, (wait + SECOND - 1) / SECOND);
    }
  }

  /** A server that answers each request at a virtual instant. */
  interface Server {
    RateLimitSignal handle(long now);
  }

  /**
   * A fixed window of {@code quota} per {@code windowMillis} (the first starting at 0), that
   * answers a 429 with a whole-second {@code Retry-After} rounded up (or none) and nothing else.
   */
  static final class Window implements Server {
    final long quota;
    final long windowNanos;
    final boolean retryAfter;
    long index = -1;
    long count;

    Window(long quota, long windowMillis, boolean retryAfter) {
      this.quota = quota;
      this.windowNanos = windowMillis * 1_000_000L;
      this.retryAfter = retryAfter;
    }

    @Override
    public RateLimitSignal handle(long now) {
      if (now / windowNanos != index) {
        index = now / windowNanos;
        count = 0;
      }
      if (count < quota) {
        count++;
        return RateLimitSignal.none(200);
      }
      long wait = (index + 1) * windowNanos - now;
      return throttled(429, retryAfter ? (wait + SECOND - 1) / SECOND : -1);
    }
  }

  /**
   * A fixed window of {@code quota} per {@code windowMillis} that starts at the first request
   * after the last one ended (@fastify/rate-limit's, express-rate-limit's and koa-ratelimit's
   * memory stores, a Redis key set to expire at its first increment), answering a 429 with a
   * whole-second {@code Retry-After} rounded up and nothing else.
   */
  static final class FirstRequestWindow implements Server {
    final long quota;
    final long windowNanos;
    long start = Long.MIN_VALUE;
    long count;

    FirstRequestWindow(long quota, long windowMillis) {
      this.quota = quota;
      this.windowNanos = windowMillis * 1_000_000L;
    }

    @Override
    public RateLimitSignal handle(long now) {
      if (start == Long.MIN_VALUE || start + windowNanos <= now) {
        start = now;
        count = 0;
      }
      if (count < quota) {
        count++;
        return RateLimitSignal.none(200);
      }
      long wait = start + windowNanos - now;
      return throttled(429, (wait + SECOND - 1) / SECOND);
    }
  }

  /**
   * A fixed window of {@code quota} per {@code windowMillis} counted from fixed instants, the
   * first of which ends {@code firstEndMillis} after {@code originNanos} (first contact meets it
   * part-way), answering a 429 with a whole-second {@code Retry-After} rounded up and nothing else.
   */
  static final class PartWayWindow implements Server {
    final long quota;
    final long windowNanos;
    final long startNanos;
    long index = Long.MIN_VALUE;
    long count;

    PartWayWindow(long quota, long windowMillis, long originNanos, long firstEndMillis) {
      this.quota = quota;
      this.windowNanos = windowMillis * 1_000_000L;
      this.startNanos = originNanos + firstEndMillis * 1_000_000L - windowNanos;
    }

    @Override
    public RateLimitSignal handle(long now) {
      long i = Math.floorDiv(now - startNanos, windowNanos);
      if (i != index) {
        index = i;
        count = 0;
      }
      if (count < quota) {
        count++;
        return RateLimitSignal.none(200);
      }
      long wait = startNanos + (index + 1) * windowNanos - now;
      return throttled(429, (wait + SECOND - 1) / SECOND);
    }
  }

  /** One caller back to back for {@code seconds}: 25 ms each way. Returns {admitted, 429s}. */
  private int[] run(Pacer pacer, Server server, long seconds) {
    return run(pacer, server, seconds, 0);
  }

  /**
   * One caller back to back for {@code seconds}: 25 ms each way. Returns {admitted, 429s, 429s
   * answered after {@code settleSeconds}}.
   */
  private int[] run(Pacer pacer, Server server, long seconds, long settleSeconds) {
    int admitted = 0;
    int throttled = 0;
    int late = 0;
    long end = seconds * SECOND;
    while (clock.read() < end) {
      Optional<Permit> permit = pacer.tryAcquire(GET);
      if (permit.isEmpty()) {
        clock.advance(Duration.ofMillis(10));
        continue;
      }
      clock.advance(Duration.ofMillis(25));
      RateLimitSignal signal = server.handle(clock.read());
      if (signal.status() == 429) {
        throttled++;
        if (clock.read() >= settleSeconds * SECOND) {
          late++;
        }
      } else {
        admitted++;
      }
      clock.advance(Duration.ofMillis(25));
      permit.get().complete(signal);
    }
    return new int[] {admitted, throttled, late};
  }

  /**
   * {@code callers} closed-loop callers at once (the interop suite's worker threads), 25 ms each
   * way, for {@code seconds}. Returns {admitted, 429s, 429s answered after
   * {@code settleSeconds}}.
   */
  private Outcome callers(Pacer pacer, Server server, int callers, long seconds,
      long settleSeconds) {
    return callers(pacer, server, callers, seconds, settleSeconds, Duration.ofMillis(25));
  }

  /** As above, {@code oneWay} each way. */
  private Outcome callers(Pacer pacer, Server server, int callers, long seconds,
      long settleSeconds, Duration oneWay) {
    Outcome outcome = new Outcome(clock.read() + settleSeconds * SECOND);
    for (int i = 0; i < callers; i++) {
      call(pacer, server, outcome, oneWay);
    }
    for (long step = 0; step < seconds * 100; step++) {
      clock.advance(Duration.ofMillis(10));
    }
    return outcome;
  }

  /** What the server saw: requests admitted, and the seconds of each 429 after the settling. */
  static final class Outcome {
    final long settleNanos;
    int admitted;
    int refused;
    final List<Double> late = new ArrayList<>();

    Outcome(long settleNanos) {
      this.settleNanos = settleNanos;
    }

    /** The most 429s in any minute after the settling. */
    long mostInAMinute() {
      long most = 0;
      for (double start : late) {
        most = Math.max(most, late.stream().filter(t -> t >= start && t < start + 60).count());
      }
      return most;
    }
  }

  private void call(Pacer pacer, Server server, Outcome outcome, Duration oneWay) {
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        clock.schedule(() -> call(pacer, server, outcome, oneWay), Duration.ofMillis(100));
        return;
      }
      clock.schedule(() -> {
        RateLimitSignal answer = server.handle(clock.read());
        if (answer.status() != 429) {
          outcome.admitted++;
        } else {
          outcome.refused++;
          if (clock.read() >= outcome.settleNanos) {
            outcome.late.add(clock.read() / 1e9);
          }
        }
        clock.schedule(() -> {
          permit.complete(answer);
          call(pacer, server, outcome, oneWay);
        }, oneWay);
      }, oneWay);
    });
  }

  @Test
  void aSuccessSentBeforeTheCutIsNotCountedAsAdmittedAtTheNewPace() throws Exception {
    // Regression: a request sent before a 429 and admitted after it was counted in the new
    // cycle, so the next 429, into a server still spent (a window waiting for its end), was
    // taken for an overshoot of the new pace and cut it to what the "cycle" sustained: one
    // request in 31 s instead of one per 1 s hold.
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    clock.advance(Duration.ofMillis(10));
    Permit a = pacer.acquire(GET);
    Permit b = pacer.acquire(GET);
    clock.advance(Duration.ofMillis(10));
    a.complete(throttled(429, 1)); // the first 429 teaches a pace
    b.complete(RateLimitSignal.none(200)); // sent before it, admitted: the old cycle
    Duration pace = learned(pacer).orElseThrow().window().orElseThrow();
    clock.advance(Duration.ofSeconds(1));
    pacer.acquire(GET).complete(throttled(429, 30)); // still spent: nothing admitted since
    assertThat(learned(pacer).orElseThrow().window()).as("the pace is kept").contains(pace);
  }

  @Test
  void oneRetryAfterHoldTeachesOneRequestPerHoldNotABurstOfProbes() throws Exception {
    // A bucket: five admitted over 3 s, then a 2 s Retry-After, shorter than the time the
    // server took to be spent (a window's end would be later than that).
    Pacer pacer = builder().build();
    for (int i = 0; i < 5; i++) {
      pacer.acquire(GET).complete(RateLimitSignal.none(200));
      clock.advance(Duration.ofMillis(600));
    }
    pacer.acquire(GET).complete(throttled(429, 2));
    List<CompletableFuture<Permit>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      calls.add(pacer.acquireAsync(GET));
    }
    clock.advance(Duration.ofMillis(2_000));
    assertThat(granted(calls)).as("the hold's end lets one go").hasSize(1);
    clock.advance(Duration.ofMillis(1_900));
    assertThat(granted(calls)).as("the next one a hold later, not with the first")
        .hasSize(1);
    clock.advance(Duration.ofMillis(100));
    assertThat(granted(calls)).hasSize(2);
    PolicySnapshot learned = learned(pacer).orElseThrow();
    assertThat(learned.window()).contains(Duration.ofSeconds(2));
    assertThat(learned.limit()).hasValue(1);
    assertThat(learned.confidence()).isEqualTo(0.5);
    assertThat(learned.toString()).contains("confidence 0.50");
  }

  @Test
  void aTokenBucketThatSendsOnlyRetryAfterIsPacedAtItsRate() {
    // 100 per minute, 10 stored; before the learner: 30% of requests answered 429.
    Bucket server = new Bucket(10, 600, true);
    int[] outcome = run(builder().build(), server, 600);
    int sent = outcome[0] + outcome[1];
    assertThat(outcome[1]).as("429s of %s sent", sent).isLessThanOrEqualTo(sent * 3 / 100);
    assertThat(outcome[0]).as("admitted of the 1,010 the bucket allows")
        .isGreaterThanOrEqualTo(909);
  }

  @Test
  void aBucketThatSaysNothingAtAllIsPacedToo() {
    Bucket server = new Bucket(10, 600, false);
    int[] outcome = run(builder().build(), server, 600);
    int sent = outcome[0] + outcome[1];
    assertThat(outcome[1]).as("429s of %s sent", sent).isLessThanOrEqualTo(sent * 3 / 100);
    assertThat(outcome[0]).as("admitted of the 1,010 the bucket allows")
        .isGreaterThanOrEqualTo(909);
  }

  @Test
  void aBucketSlowerThanMaxWaitIsPacedNotProbedPast() {
    // Regression (simulator, seed 7: bare-429 buckets and GCRAs of 6-54 per 6-55 min drew
    // 52-79% 429s): a bucket of 5 that gets one token back a minute, bare 429s, one caller for
    // 30 minutes. The cut kept one request per hold, but a bare 429's hold is the pacer's own
    // 1 s backoff, so the pace stayed near one a second; a pace slower than maxWait was taken
    // for a long block whose probe, once admitted, dropped the learned rate; and each token
    // that came back brought back that pace for a run of halving probes. 116 429s for 34
    // admitted before; now the cut goes to what the server sustained and the pace is kept.
    Bucket server = new Bucket(5, 60_000, false);
    int[] outcome = run(builder().build(), server, 1_800);
    assertThat(outcome[1]).as("429s").isLessThanOrEqualTo(20);
    assertThat(outcome[0]).as("admitted of the 35 the bucket allows").isGreaterThanOrEqualTo(33);
  }

  @Test
  void pastTheRateThatLastOvershotTheProbesGoSlowly() {
    // 100 per minute, 10 stored, Retry-After only, one caller for 20 minutes. Each probe past
    // the rate that drew the last 429 drains the stored tokens and ends in one 429: the slower
    // the probe, the fewer (probing by 1/1024 of the rate per admitted request drew more than
    // 1.2%; by 1/4096, 16 429s of 2,023 requests).
    Bucket server = new Bucket(10, 600, true);
    int[] outcome = run(builder().build(), server, 1_200);
    int sent = outcome[0] + outcome[1];
    assertThat(outcome[1]).as("429s of %s sent", sent).isLessThanOrEqualTo(sent * 12 / 1000);
    assertThat(outcome[0]).as("admitted of the 2,010 the bucket allows")
        .isGreaterThanOrEqualTo(1_960);
  }

  @Test
  void onceABareBucketsRateIsFoundItDrawsAtMostOneProbeA429AMinute() {
    // express-throttle's and nginx's limit_req: a burst of 20, 5 a second, a bare 429, 8
    // callers. Each
    // cycle used to probe back past the rate that last overshot: 10 429s in the first minute,
    // one every 3-8 s. Now the rate discovered over a cycle (from one reopening after a 429 to
    // the next) is kept, and probed past once a minute at most.
    Bucket server = new Bucket(20, 200, false);
    Outcome outcome = callers(builder().build(), server, 8, 300, 8);
    assertThat(outcome.mostInAMinute()).as("the most 429s in a minute after the first two "
        + "windows; all of them at %s s", outcome.late).isLessThanOrEqualTo(1);
    assertThat(outcome.admitted).as("admitted of the 1,520 the bucket allows")
        .isGreaterThanOrEqualTo(1_368);
  }

  @Test
  void onceAFixedWindowsQuotaIsFoundWithRetryAfterItDrawsAtMostOneProbeA429AMinute() {
    // @fastify/rate-limit with its headers off: 20 per 4 s, only Retry-After (whole seconds) on
    // the 429, 8 callers. A 429 every window or two before, to the end: the pace went back past
    // the one that last overshot. The window's quota over its length is what a cycle between
    // two reopenings admits; discovering it takes three cycles here (the first pace after a
    // 4 s Retry-After is one request per hold, so the first cycles leave windows partly
    // unused and do not count), so the first 40 s are left out.
    Window server = new Window(20, 4_000, true);
    Outcome outcome = callers(builder().build(), server, 8, 300, 40);
    assertThat(outcome.mostInAMinute()).as("the most 429s in a minute once discovered; all of "
        + "them at %s s", outcome.late).isLessThanOrEqualTo(1);
    assertThat(outcome.admitted).as("admitted of the 1,500 the window allows")
        .isGreaterThanOrEqualTo(1_350);
  }

  @Test
  void aHoldToldInWholeSecondsIsNotPaddedWithJitterAsWell() {
    // A fixed window of 103 per 6 s from 0 that answers a 429 with a whole-second Retry-After
    // (simulator, Retry-After only, seed 11017: 103 per 6 s, 60 callers, 89.0%), 60 callers, 1 ms
    // each way, the default jitter. The first burst spends the window by 0.05 s and is told
    // "Retry-After: 6": the hold ends at 6.05 s, the latest moment the whole seconds allow, up to
    // a second after the window's end already. The waiters were given that end plus the jitter
    // added to a time the server gave (up to a second more): the next window's first request
    // went at about 7 s, a sixth of the window unused.
    Window inner = new Window(103, 6_000, true);
    List<Double> admittedAt = new ArrayList<>();
    Server server = now -> {
      RateLimitSignal answer = inner.handle(now);
      if (answer.status() != 429) {
        admittedAt.add(now / 1e9);
      }
      return answer;
    };
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock).jitterSeed(1)
        .build();
    callers(pacer, server, 60, 20, 1, Duration.ofMillis(1));
    assertThat(admittedAt.stream().filter(t -> t > 1).findFirst()).as("the first request "
        + "admitted after the first hold (it ends at 6.05 s)").hasValueSatisfying(
            t -> assertThat(t).isLessThan(6.2));
  }

  @Test
  @Disabled("Reproduces the second lost after the first one-second hold against a fast server; "
      + "the fix tried (the callers wait for the first answer after the hold instead of taking "
      + "a slot at one request per hold) moved the fixed grid's silent rows the wrong way: "
      + "the slot a hold later also keeps a slow bucket from a second 429 (docs/benchmarks-log.md, "
      + "s27-short)")
  void theAnswerToTheFirstRequestAfterAOneSecondHoldSetsThePaceForTheCallersBehindIt() {
    // A fast token bucket (simulator, Retry-After only, seed 2026: 1,973 per 1 s, 61 callers,
    // 77.9% of the allowance): 100 stored, one back every 10 ms, a whole-second Retry-After on
    // the 429; 8 callers, 1 ms each way. After the first burst the pace is one request per
    // hold, until the first request after the hold is admitted. The callers had committed to
    // that pace during the hold: the hold's end let one request go and the next took a slot a
    // second later, so every caller behind it waited that second too (one request admitted in
    // the second after the hold, where the bucket gives 100). They wait for that answer
    // instead, and go at the pace it leaves.
    Bucket inner = new Bucket(100, 10, true);
    List<Double> admittedAt = new ArrayList<>();
    List<Double> refusedAt = new ArrayList<>();
    Server server = now -> {
      RateLimitSignal answer = inner.handle(now);
      (answer.status() == 429 ? refusedAt : admittedAt).add(now / 1e9);
      return answer;
    };
    callers(builder().build(), server, 8, 10, 1, Duration.ofMillis(1));
    double firstRefused = refusedAt.get(0);
    long afterHold = admittedAt.stream()
        .filter(t -> t > firstRefused + 0.5 && t < firstRefused + 2).count();
    assertThat(afterHold).as("admitted in the second after the first hold (first 429 at %s s)",
        firstRefused).isGreaterThanOrEqualTo(60);
    assertThat(refusedAt.stream().filter(t -> t > firstRefused + 0.5).count())
        .as("429s after the first burst").isLessThanOrEqualTo(2);
  }

  @Test
  void shortCyclesInARowAreMeasuredTogether() {
    // A token bucket of 19 that gets one back every 474 ms (simulator, Retry-After only, seed
    // 11003: 19 per 9 s, 2 callers), a whole-second Retry-After on the 429; 2 callers, 25 ms
    // each way, 90 s. After the first burst, each cut went to what the cycle sustained and the
    // pace climbed back to near the one that had overshot, a few percent past the bucket's rate:
    // a 429 every 3-7 s, because no cycle of 7-9 admitted counted toward the rate discovered
    // (ten are needed), until one long enough came. Cycles in a row are one cycle from the first
    // one's reopening to the last one's: together they count once they admitted ten.
    Outcome outcome = callers(builder().build(), new Bucket(19, 474, true), 2, 90, 1);
    assertThat(outcome.late).as("429s after the first burst").hasSizeLessThanOrEqualTo(3);
    assertThat(outcome.admitted).as("admitted of the 208 the bucket allows")
        .isGreaterThanOrEqualTo(195);
  }

  @Test
  void aProbeThatFindsTheLimitWhereItWasWaitsTwiceAsLongBeforeTheNext() {
    // A slow token bucket told by Retry-After only (simulator, Retry-After only, seed 11003: 81
    // per 439 s, 27 callers), 81 stored, one back every 5.42 s; 4 callers, 25 ms each way, two
    // hours. Once its rate is discovered, each probe for a raised limit climbed past it a minute
    // after the last 429 and found the bucket where it was: one 429 every six minutes or so (a
    // minute, then about 50 requests from the rate discovered to the bucket's), to the end of
    // the run. Each probe that found nothing now doubles the wait before the next.
    Outcome outcome = callers(builder().build(), new Bucket(81, 5_420, true), 4, 7_200, 600);
    assertThat(outcome.late).as("429s after the first 10 minutes").hasSizeLessThanOrEqualTo(8);
    assertThat(outcome.admitted).as("admitted of the 1,409 the bucket allows")
        .isGreaterThanOrEqualTo(1_330);
  }

  @Test
  void aFixedWindowThatToldItsEndIsPacedAtItsQuotaFromTheSecondWindow() {
    // @fastify/rate-limit with its headers off (20 per 4 s from first contact, only a
    // whole-second Retry-After on the 429), 8 callers, 60 s. The first 429's Retry-After, longer
    // than the time the server took to be spent, is the window's end: what it admitted until
    // then (20 in 4 s) is the pace, not one request per 4 s hold (which left the next windows
    // partly unused: 78-86% of the allowance, 2-3 429s after the first two windows).
    Window server = new Window(20, 4_000, true);
    Outcome outcome = callers(builder().build(), server, 8, 60, 8);
    assertThat(outcome.late).as("429s after the first two windows").hasSizeLessThanOrEqualTo(1);
    assertThat(outcome.admitted).as("admitted of the 300 the window allows")
        .isGreaterThanOrEqualTo(270);
    assertThat(outcome.refused).as("429s in all, most of them the first burst's")
        .isLessThanOrEqualTo(10);
  }

  @Test
  void aWindowMetPartWayIsMeasuredByItsSecondWindowBetweenTwoToldEnds() {
    // A fixed window of 6 per 100 s counted from fixed instants, met 20 s into one (simulator,
    // Retry-After only, seed 8537: 6 per 102 s met 19.6 s in), 3 callers, 25 ms each way. The
    // first window gave its 6 in the 80 s left of it, so its measure is too fast (and the probe
    // for a raised limit, a minute and that window's length after the first 429, lifts the pace
    // a little past it): the first paced window draws a 429. That window, from the first
    // window's told end to its own, is a whole window, and it admitted as many as the first did
    // (a sliding window still full of the first burst gives back less): it replaces the first
    // window's measure, and no later window draws a 429. Before, the first window's measure
    // stayed, blended with the second's, and the third window drew a 429 too.
    PartWayWindow server = new PartWayWindow(6, 100_000, clock.read(), 80_000);
    Outcome outcome = callers(builder().build(), server, 3, 680, 180);
    assertThat(outcome.late).as("429s after the second window (it ends at 180 s)").isEmpty();
    assertThat(outcome.admitted).as("admitted of the 42 the window allows")
        .isGreaterThanOrEqualTo(40);
  }

  @Test
  void aWindowStartedByItsFirstRequestDrawsNo429AfterTheFirstBurst() {
    // @fastify/rate-limit with its headers off, as it counts: 20 per 4 s from the first request
    // after the last window ended, a whole-second Retry-After rounded up on the 429; 8 callers,
    // 60 s. The first window's 20 over the time to its told end is the pace (less half a
    // request), and nothing after it draws a 429 (the probe for a raised limit starts a minute
    // after it). Before, the first cycles climbed toward the rate of everything sent in the first
    // burst, refused requests included, and overshot twice after the first two windows (the
    // interop suite: 20/8 18/0 14/1 22/0 14/1 ...), and the cycles they measured, each up to a
    // second too long, left the pace at 15-18 a window.
    // At 100 ms each way the first burst takes 0.9 s of the window: told 4 s at 0.9 s, the end
    // lies in (3.9 s, 4.9 s] from first contact, and the window is the 4 s in it (4.9 s paced
    // 16 a window, 80%, as the interop suite's cells on a loaded machine).
    for (Duration oneWay : List.of(Duration.ofMillis(1), Duration.ofMillis(25),
        Duration.ofMillis(100))) {
      FirstRequestWindow server = new FirstRequestWindow(20, 4_000);
      Outcome outcome = callers(builder().build(), server, 8, 60, 4, oneWay);
      assertThat(outcome.late).as("429s after the first window, %s each way", oneWay).isEmpty();
      assertThat(outcome.admitted).as("admitted of the 300 the window allows, %s each way",
          oneWay).isGreaterThanOrEqualTo(280);
    }
  }

  @Test
  void theFirstWindowCountsWhatItAdmittedAfterItsFirst429CameBack() throws Exception {
    // A 429 is answered before the route runs, so it can overtake admitted answers still on
    // their way: here the first 429 comes back with six of the window's 20 still in flight.
    // Counting only the 14 answered by then paced 14 a window (the interop suite's fastify
    // cells: 16-17 a window, 80-83% of the allowance); the window admitted all 20.
    Pacer pacer = builder().build();
    for (int i = 0; i < 14; i++) {
      pacer.acquire(GET).complete(RateLimitSignal.none(200));
    }
    List<Permit> inFlight = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      inFlight.add(pacer.acquire(GET));
    }
    Permit refused = pacer.acquire(GET);
    clock.advance(Duration.ofMillis(10));
    refused.complete(throttled(429, 4));
    for (Permit p : inFlight) {
      p.complete(RateLimitSignal.none(200));
    }
    // 19.5 (20 less half a request) per the 4 s in (3.01 s, 4.01 s]: 205.1 ms apart.
    assertThat(learned(pacer).orElseThrow().window().orElseThrow())
        .isBetween(Duration.ofMillis(205), Duration.ofMillis(206));
  }

  @Test
  void aWholeSecondRetryAfterIsAnIntervalAndTwoThatOverlapNarrowTheHold() throws Exception {
    // Two requests in flight together are refused: the first answer (0.3 s) says 4 s, so the
    // end is after 3 s (sent at 0, rounded up) and by 4.3 s; the second (0.5 s) says 3 s, so
    // after 2 s and by 3.5 s. Both tell the same end, in (3 s, 3.5 s]: the hold ends at 3.5 s,
    // not 4.3 s. (Nothing admitted before: no rate is learned, only the hold acts.)
    Pacer pacer = builder().build();
    long start = clock.read();
    Permit a = pacer.acquire(GET);
    Permit b = pacer.acquire(GET);
    clock.advance(Duration.ofMillis(300));
    a.complete(throttled(429, 4));
    clock.advance(Duration.ofMillis(200));
    b.complete(throttled(429, 3));
    CompletableFuture<Permit> next = pacer.acquireAsync(GET);
    clock.advance(Duration.ofNanos(start + 3_500_000_000L - clock.read() - 1));
    assertThat(next).as("held until the narrowed end").isNotDone();
    clock.advance(Duration.ofNanos(1));
    assertThat(next).as("not held past it").isDone();
    // A later answer whose interval does not overlap tells a later end: the hold waits for it.
    next.join().complete(throttled(429, 4));
    CompletableFuture<Permit> after = pacer.acquireAsync(GET);
    clock.advance(Duration.ofMillis(3_999));
    assertThat(after).isNotDone();
    clock.advance(Duration.ofMillis(1));
    assertThat(after).isDone();
  }

  @Test
  void aPaced429CutsTheRateAndRaisesTheConfidence() throws Exception {
    clock.autoAdvance(true); // acquire sleeps through the hold in virtual time
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    pacer.acquire(GET).complete(throttled(429, 1));
    for (int i = 0; i < 5; i++) {
      pacer.acquire(GET).complete(RateLimitSignal.none(200));
    }
    Duration before = learned(pacer).orElseThrow().window().orElseThrow();
    Permit paced = pacer.acquire(GET);
    paced.complete(throttled(429, 1));
    PolicySnapshot cut = learned(pacer).orElseThrow();
    assertThat(cut.window().orElseThrow()).as("spacing after a cut")
        .isGreaterThanOrEqualTo(Duration.ofNanos(before.toNanos() * 10 / 9));
    assertThat(cut.confidence()).isGreaterThan(0.5);
  }

  @Test
  void admittedRequestsProbeUpwardFromTheCut() throws Exception {
    // A bare 429: its hold is the pacer's own backoff, so the pace starts at one request per
    // hold and nothing is discovered yet; each admitted request raises it.
    clock.autoAdvance(true); // acquire sleeps through the hold in virtual time
    Pacer pacer = builder().build();
    for (int i = 0; i < 20; i++) {
      pacer.acquire(GET).complete(RateLimitSignal.none(200));
    }
    pacer.acquire(GET).complete(throttled(429, -1));
    Duration before = learned(pacer).orElseThrow().window().orElseThrow();
    for (int i = 0; i < 5; i++) {
      pacer.acquire(GET).complete(RateLimitSignal.none(200));
    }
    assertThat(learned(pacer).orElseThrow().window().orElseThrow()).isLessThan(before);
  }

  @Test
  void aHeaderNumberWinsOverTheGuess() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    pacer.acquire(GET).complete(throttled(429, 5));
    assertThat(learned(pacer)).isPresent();
    clock.advance(Duration.ofSeconds(5));
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 50, 30));
    assertThat(learned(pacer)).isEmpty();
    assertThat(pacer.quota(HOST).policy("default")).isPresent();
    long start = clock.read();
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 49 - i, 30));
    }
    assertThat(clock.read() - start).as("paced by the header's 50 left, not by the guess")
        .isLessThan(5 * SECOND);
  }

  @Test
  void a429WithNothingAdmittedSinceTheCutDoesNotCutAgain() throws Exception {
    // A fixed window that is spent answers every request with a 429 until its end: that says
    // nothing about the pace, and cutting at each would leave nothing of the rate at the reset.
    // Its Retry-After says when it is back: the hold waits for that.
    clock.autoAdvance(true);
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    pacer.acquire(GET).complete(throttled(429, 1));
    PolicySnapshot first = learned(pacer).orElseThrow();
    for (int i = 0; i < 5; i++) {
      pacer.acquire(GET).complete(throttled(429, 1));
    }
    PolicySnapshot after = learned(pacer).orElseThrow();
    assertThat(after.window()).isEqualTo(first.window());
    assertThat(after.confidence()).isEqualTo(first.confidence());
  }

  @Test
  void a429BeforeAnythingWasAdmittedTeachesNoRate() throws Exception {
    // The first answer is a 429: the server has admitted nothing, so nothing says what pace it
    // keeps. The hold waits, then the probes go together as on first contact.
    Pacer pacer = builder().maxWait(Duration.ofSeconds(2)).build();
    pacer.acquire(GET).complete(throttled(429, 1));
    assertThat(learned(pacer)).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    List<CompletableFuture<Permit>> probes = List.of(pacer.acquireAsync(GET),
        pacer.acquireAsync(GET));
    assertThat(granted(probes)).as("both probes at the hold's end").hasSize(2);
    for (Permit p : granted(probes)) {
      p.complete(RateLimitSignal.none(200));
    }
    pacer.acquire(GET).complete(throttled(429, 2));
    assertThat(learned(pacer)).as("a 429 after admitted requests teaches a pace").isPresent();
  }

  @Test
  void aFirstWindowMeasureIsNotProbedPastBeforeAWindowPacedAtItHasPassed() {
    // A slow token bucket told by Retry-After (simulator, Retry-After only, seed 9437: 12 per
    // 3,294 s, all 12 stored, one back every 274.5 s; here one every 100 s), 8 callers taking
    // permits with tryAcquire, 25 ms each way, an hour. The first 429's Retry-After (100 s, past
    // maxWait) is taken for a first window's end, 12 per 100 s: too fast for a bucket, and the
    // first request paced at it is refused, which drops that measure. The probe for a raised
    // limit may go past the first window's measure only once a window paced at it has passed;
    // it was timed from the first 429, not from the end of its hold, so with a hold as long as
    // the window the first paced request already probed past the measure, the 429 to it did
    // not drop the measure, and it stayed blended into the rate discovered: 37 429s, 22 of them
    // after the first 1,000 s. Now the measure is dropped, the exact cycles (one token each)
    // find the bucket's rate, and no 429 comes after them.
    Outcome outcome = tryCallers(new Bucket(12, 100_000, true), 8, 3_600, 1_000);
    assertThat(outcome.late).as("429s after the first 1,000 s").isEmpty();
    assertThat(outcome.admitted).as("admitted of the 47 the bucket allows")
        .isGreaterThanOrEqualTo(44);
  }

  @Test
  void aRetryAfterShorterThanThePacesSpacingIsNoFloorForTheCut() {
    // A GCRA of one request every 6.04 s with a burst of 2 that answers a 429 with only its
    // wait, rounded up to whole seconds (simulator, Retry-After only, seed 9521: 24 per 145 s, 6
    // callers), 24 minutes. A request paced a little too fast is refused a fraction of a second
    // early, and the Retry-After says 1 s: one request per that hold is far faster than the
    // pace already is, so it is no floor; it kept every cut at nine tenths of the pace that
    // overshot (what the server sustained over the cycle was never looked at): nine cuts, one
    // 429 each, before the pace came down to the GCRA's (14 429s). Now a hold shorter than
    // the pace's spacing bounds nothing, and what the cycle sustained brings the pace down.
    Outcome outcome = tryCallers(new Gcra(6_042, 2), 6, 1_450, 120);
    assertThat(outcome.refused).as("429s; after 120 s at %s s", outcome.late)
        .isLessThanOrEqualTo(9);
    assertThat(outcome.late).as("429s after 120 s").hasSizeLessThanOrEqualTo(2);
    assertThat(outcome.admitted).as("admitted of the 241 the GCRA allows")
        .isGreaterThanOrEqualTo(225);
  }

  @Test
  void aBareWindowThatGaveTheSameCountTwiceIsNotOverrunNorProbedIntoAfterItsCount() {
    // A fixed window of 20 per minute that answers a bare 429 (no Retry-After, no count), 4
    // callers taking permits with tryAcquire, 25 ms each way, 20 minutes. Every window used to
    // cost the overshoot and the halving probes into the spent window until it reopened (1, 2,
    // 4 ... 30 s apart): 86 429s, 62 of them after the first 5 minutes. Two cycles between
    // reopenings that admitted the same count (the first burst's 20, then 20) make it a steady
    // window: no more than 20 go from one reopening to the next one predicted, a period later,
    // where one request probes; a probe refused as too early tells the reopening is later, and
    // the bounds on the period narrow with every window.
    Outcome outcome = tryCallers(new Window(20, 60_000, false), 4, 1_200, 300);
    assertThat(outcome.late).as("429s after the first 5 minutes").hasSizeLessThanOrEqualTo(6);
    assertThat(outcome.admitted).as("admitted of the 400 the window allows")
        .isGreaterThanOrEqualTo(390);
  }

  @Test
  void aBareWindowsFirstBurstAndFirstCycleMakeASteadyWindowWhosePeriodFirstContactBounds() {
    // A fixed window of 15 per 81 s met 15.3 s in (65.7 s left), answering a bare 429, 2
    // callers, 10 windows (the simulator's seed 4242 has it). The first burst gave 15, the cycle
    // after the first reopening 15 again, but the steady window was taken only once the next
    // reopening was found by the halving probes (1, 2, 4 ... s after that cycle's 429), and its
    // period was bounded from those two reopenings alone, 10 s to 92 s: 28 429s, 15 after the
    // first 200 s. Now it is taken at that cycle's 429: the first window began at or before
    // first contact and was still spent when the last probe into it was refused, so the period
    // is longer than that, and the first probe into the second window goes no sooner than the
    // earliest it can reopen; every two windows seen bound the period after that.
    Window window = new Window(15, 81_000, false);
    Server server = now -> window.handle(now + 15_300_000_000L);
    Outcome outcome = tryCallers(server, 2, 810, 200);
    assertThat(outcome.refused).as("429s; after 200 s at %s s", outcome.late)
        .isLessThanOrEqualTo(16);
    assertThat(outcome.late).as("429s after 200 s").hasSizeLessThanOrEqualTo(6);
    assertThat(outcome.admitted).as("admitted of the 165 the window allows")
        .isGreaterThanOrEqualTo(160);
  }

  /**
   * {@code callers} callers taking permits with {@code tryAcquire} as soon as one is free, 25 ms
   * each way, for {@code seconds}, in steps of 10 ms. Returns what the server saw, 429s after
   * {@code settleSeconds} listed.
   */
  private Outcome tryCallers(Server server, int callers, long seconds, long settleSeconds) {
    Pacer pacer = builder().build();
    Outcome outcome = new Outcome(settleSeconds * SECOND);
    long oneWay = 25_000_000L;
    List<Permit> out = new ArrayList<>();
    List<Long> arrives = new ArrayList<>();
    List<Object[]> back = new ArrayList<>();
    while (clock.read() < seconds * SECOND) {
      long now = clock.read();
      for (int i = 0; i < out.size(); i++) {
        if (arrives.get(i) <= now) {
          RateLimitSignal answer = server.handle(now);
          if (answer.status() != 429) {
            outcome.admitted++;
          } else {
            outcome.refused++;
            if (now >= outcome.settleNanos) {
              outcome.late.add(now / 1e9);
            }
          }
          back.add(new Object[] {out.remove(i), answer, now + oneWay});
          arrives.remove(i--);
        }
      }
      for (int i = 0; i < back.size(); i++) {
        if ((long) back.get(i)[2] <= now) {
          Object[] answer = back.remove(i--);
          ((Permit) answer[0]).complete((RateLimitSignal) answer[1]);
        }
      }
      while (out.size() + back.size() < callers) {
        Optional<Permit> permit = pacer.tryAcquire(GET);
        if (permit.isEmpty()) {
          break;
        }
        out.add(permit.get());
        arrives.add(now + oneWay);
      }
      clock.advance(Duration.ofMillis(10));
    }
    return outcome;
  }

  @Test
  void aHoldLongerThanMaxWaitEndsAWindowWhosePaceIsWhatTheWindowAdmitted() throws Exception {
    // A fixed window spent early: ten admitted, then a 429 whose Retry-After (10 s, past
    // maxWait) runs to the window's end. One request per hold (10 s) would waste the next
    // window; what the server admitted over this one, ten in 10 s, is the pace, less half a
    // request (a measure is good to about one): 9.5 per 10 s.
    Pacer pacer = builder().maxWait(Duration.ofSeconds(2)).build();
    for (int i = 0; i < 10; i++) {
      pacer.acquire(GET).complete(RateLimitSignal.none(200));
    }
    pacer.acquire(GET).complete(throttled(429, 10));
    PolicySnapshot learned = learned(pacer).orElseThrow();
    assertThat(learned.window()).contains(Duration.ofNanos((20 * SECOND + 18) / 19));
  }

  @Test
  void bareRefusalsOfASpentServerAreProbedHalfAsOftenUntilOneIsAdmitted() throws Exception {
    clock.autoAdvance(true); // acquire sleeps through holds and spacing in virtual time
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    pacer.acquire(GET).complete(throttled(429, -1)); // a bare 429: backoff, one per second
    assertThat(learned(pacer).orElseThrow().window()).contains(Duration.ofSeconds(1));
    pacer.acquire(GET).complete(throttled(429, -1));
    assertThat(learned(pacer).orElseThrow().window()).as("spent: half as often")
        .contains(Duration.ofSeconds(2));
    long before = clock.read();
    pacer.acquire(GET).complete(throttled(429, -1));
    assertThat(clock.read() - before).as("the probe waited out the doubled spacing")
        .isGreaterThanOrEqualTo(2 * SECOND);
    assertThat(learned(pacer).orElseThrow().window()).contains(Duration.ofSeconds(4));
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    assertThat(learned(pacer).orElseThrow().window().orElseThrow())
        .as("back: the pace from before the spent run").isLessThanOrEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aProbeThatLiftsALongBlockDropsTheRateLearnedFromIt() throws Exception {
    Pacer pacer = builder().maxWait(Duration.ofSeconds(2)).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    pacer.acquire(GET).complete(throttled(429, 86_400)); // a day
    assertThat(learned(pacer)).isPresent();
    assertThat(pacer.tryAcquire(GET)).isEmpty();
    clock.advance(Duration.ofSeconds(2));
    pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("no probe"))
        .complete(RateLimitSignal.none(200));
    assertThat(learned(pacer)).as("the server is back: the guess goes with the block").isEmpty();
    for (int i = 0; i < 5; i++) {
      pacer.tryAcquire(GET).orElseThrow(() -> new AssertionError("paced after the lift"))
          .complete(RateLimitSignal.none(200));
    }
  }

  @Test
  void a503TeachesNoRate() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(throttled(503, 2));
    assertThat(learned(pacer)).isEmpty();
  }

  @Test
  void whatWasLearnedIsReportedInAnEvent() throws Exception {
    List<PacerEvent> events = new CopyOnWriteArrayList<>();
    Pacer pacer = builder().listener(events::add).build();
    pacer.acquire(GET).complete(RateLimitSignal.none(200));
    pacer.acquire(GET).complete(throttled(429, 3));
    assertThat(events).filteredOn(e -> e instanceof PacerEvent.QuotaUpdated)
        .extracting(e -> ((PacerEvent.QuotaUpdated) e).quota().policy("learned").orElseThrow())
        .singleElement()
        .satisfies(p -> {
          assertThat(p.learned()).isTrue();
          // one admitted, then told 3 s: 0.95 of a request per 3 s
          assertThat(p.window()).contains(Duration.ofNanos((60 * SECOND + 18) / 19));
        });
  }

  @Test
  void policiesReadFromHeadersAreNotLearned() throws Exception {
    Pacer pacer = builder().build();
    pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 50, 30));
    PolicySnapshot told = pacer.quota(HOST).policy("default").orElseThrow();
    assertThat(told.learned()).isFalse();
    assertThat(told.confidence()).isEqualTo(1.0);
  }
}
