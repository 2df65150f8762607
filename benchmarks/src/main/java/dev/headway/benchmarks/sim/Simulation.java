package dev.headway.benchmarks.sim;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@link Scenario} for one {@link ClientKind}: a server model on one key, a network
 * with latency, and closed-loop callers, all on one {@link SimClock}. Deterministic for a given
 * scenario (its seed) and client.
 *
 * <p>Not thread-safe; each run has its own instance.
 */
public final class Simulation {
  /** Wall time at the start of a server window; runs start {@link Scenario#phase()} later. */
  static final Instant ALIGNED_EPOCH = Instant.parse("2025-01-01T00:00:00Z");

  private static final long SECOND = 1_000_000_000L;

  /**
   * A run ends early once this many requests reached the server: only clients that flood the
   * server with 429s get there (no throttling, at once; a backoff client without a
   * {@code Retry-After}); its figures then cover the time simulated, against what a perfect client
   * got in that same time. In the fixed grid only the 50-instance scenarios reach it.
   */
  static final long MAX_REQUESTS = 1_000_000;

  /** The same bound for the random scenarios ({@link RandomScenarios}), which are many. */
  static final long MAX_REQUESTS_RANDOM = 200_000;

  private final Scenario scenario;
  private final SimClock clock;
  private final SimServer server;
  private final SplittableRandom random;
  private final long originNanos;
  private final long durationNanos;
  private final long oneWayNanos;
  private final long maxRequests;

  private long admitted;
  private long throttled;
  private long callsFailed;
  private long callsRefused;
  private long truncatedNanos = -1;
  private final Map<Object, Object> shared = new HashMap<>();
  private @Nullable Recorder recorder;
  private long[] delays = new long[1024];
  private int delayCount;
  private final long[] afterBoundary;
  private RuntimeException failure;
  private @Nullable PrintStream trace;

  private Simulation(Scenario scenario) {
    this.scenario = scenario;
    this.clock = new SimClock(ALIGNED_EPOCH.plus(scenario.phase()));
    this.originNanos = -scenario.phase().toNanos();
    this.server = scenario.scoped() != null ? scenario.scoped().create(originNanos)
        : new ModelServer(scenario.model().create(scenario.quota(), scenario.window().toNanos(),
            originNanos), scenario.style());
    this.random = new SplittableRandom(scenario.seed());
    this.durationNanos = scenario.duration().toNanos();
    this.oneWayNanos = scenario.rtt().toNanos() / 2;
    this.maxRequests = maxRequests(scenario);
    this.afterBoundary = new long[(int) Math.min(1 << 20,
        durationNanos / server.windowNanos() + 2)];
  }

  /**
   * Returns after how many requests a run of {@code scenario} ends early:
   * {@link #MAX_REQUESTS_RANDOM} for a random scenario (one whose quota, window, round trip or
   * phase differs from the fixed grid's), else {@link #MAX_REQUESTS}.
   */
  static long maxRequests(Scenario scenario) {
    return scenario.scoped() == null && !scenario.gridShape() ? MAX_REQUESTS_RANDOM
        : MAX_REQUESTS;
  }

  /** Sees every admitted request of a run (the perfect client's reference uses it). */
  interface Recorder {
    void admitted(SimServer server, SimRequest request, long nowNanos);
  }

  /** Runs {@code scenario} with {@code client} and returns what it achieved. */
  public static Result run(Scenario scenario, ClientKind client) {
    return run(scenario, client, null);
  }

  /** As {@link #run(Scenario, ClientKind)}, printing every request to {@code trace} if given. */
  public static Result run(Scenario scenario, ClientKind client,
      @Nullable PrintStream trace) {
    return run(scenario, client, trace, Reference.of(scenario));
  }

  /**
   * As {@link #run(Scenario, ClientKind, PrintStream)} with the perfect client's figures already
   * computed ({@link Reference#of}).
   */
  public static Result run(Scenario scenario, ClientKind client, @Nullable PrintStream trace,
      Reference reference) {
    Simulation sim = simulate(scenario, client, trace, null);
    return sim.result(client.name(), reference);
  }

  static Simulation simulate(Scenario scenario, ClientKind client, @Nullable PrintStream trace,
      @Nullable Recorder recorder) {
    Simulation sim = new Simulation(scenario);
    sim.trace = trace;
    sim.recorder = recorder;
    for (int i = 0; i < scenario.instances(); i++) {
      client.start(sim, i);
    }
    sim.clock.runUntil(sim.durationNanos);
    if (sim.failure != null) {
      throw new IllegalStateException(
          "client " + client.name() + " failed in " + scenario.label(), sim.failure);
    }
    return sim;
  }

  /** Returns the clock (ticker, wall clock and scheduler) every party uses. */
  public SimClock clock() {
    return clock;
  }

  /** Returns the scenario being run. */
  public Scenario scenario() {
    return scenario;
  }

  /**
   * Returns the calls caller {@code caller} of instance {@code instance} makes, one per call:
   * always {@link SimRequest#DEFAULT} for a one-quota server (no random draw), else drawn from the
   * scenario's mix by the caller's own random source, seeded by the scenario, the instance and
   * the caller: every client (and the perfect one) faces the same calls in the same order.
   */
  public Supplier<SimRequest> workload(int instance, int caller) {
    ScopedKind kind = scenario.scoped();
    if (kind == null) {
      return () -> SimRequest.DEFAULT;
    }
    SplittableRandom calls = new SplittableRandom(
        scenario.seed() * 1_000_003L + instance * 1_009L + caller);
    return () -> kind.next(calls);
  }

  /** Returns a random source for clients (seeded by the scenario). */
  public SplittableRandom random() {
    return random;
  }

  /**
   * Sends one request now; {@code onResponse} runs when the response arrives, unless the run
   * ends first.
   */
  public void send(Consumer<Response> onResponse) {
    send(SimRequest.DEFAULT, onResponse);
  }

  /**
   * Sends {@code request} now; {@code onResponse} runs when the response arrives, unless the run
   * ends first.
   */
  public void send(SimRequest request, Consumer<Response> onResponse) {
    long sent = clock.nanos();
    clock.after(latency(), () -> {
      Response response = arrive(request, sent);
      clock.after(latency(), () -> guard(() -> onResponse.accept(response)));
    });
  }

  /**
   * The request arrives at the server now (no network; the perfect client times its requests to
   * arrive exactly when admitted). Returns the response.
   */
  Response arrive(SimRequest request, long sentNanos) {
    long now = clock.nanos();
    SimServer.Reply reply = server.handle(request, now, clock.instant());
    recordArrival(now, reply.allowed());
    if (recorder != null && reply.allowed()) {
      recorder.admitted(server, request, now);
    }
    if (trace != null) {
      trace.printf(Locale.ROOT, "%10.3f %s%n", now / 1e9, reply.trace().get());
    }
    if (admitted + throttled >= maxRequests && truncatedNanos < 0) {
      truncatedNanos = now + 1;
      clock.stop();
    }
    return new Response(reply.allowed() ? 200 : 429, reply.headers(), sentNanos);
  }

  /** Returns the server (the perfect client asks it when a request would be admitted). */
  SimServer server() {
    return server;
  }

  /**
   * Returns the run's object for {@code key}, created by {@code create} on first use: state that
   * the instances of one client share within one run (a future shared-store client variant keeps
   * its virtual-time store here, so that every instance of the fleet sees the same one).
   */
  @SuppressWarnings("unchecked")
  public <T> T shared(Object key, Supplier<T> create) {
    return (T) shared.computeIfAbsent(key, k -> create.get());
  }

  /** Returns whether {@link #trace(String)} prints anything. */
  public boolean tracing() {
    return trace != null;
  }

  /** Prints {@code line}, stamped with the virtual time, when tracing. */
  public void trace(String line) {
    if (trace != null) {
      trace.printf(Locale.ROOT, "%10.3f   %s%n", clock.nanos() / 1e9, line);
    }
  }

  /** Runs {@code task} after {@code delayNanos}, failing the run if it throws. */
  public void after(long delayNanos, Runnable task) {
    clock.after(delayNanos, () -> guard(task));
  }

  /** Records a call whose successful request left the client at {@code sentNanos}. */
  public void callSucceeded(long issuedNanos, long sentNanos) {
    if (delayCount == delays.length) {
      delays = Arrays.copyOf(delays, delays.length * 2);
    }
    delays[delayCount++] = Math.max(0, sentNanos - issuedNanos);
  }

  /** Records a call given up (its retry budget spent on 429s). */
  public void callFailed() {
    callsFailed++;
  }

  /** Records a call the client refused locally (Headway's {@code RateLimitedException}). */
  public void callRefused() {
    callsFailed++;
    callsRefused++;
  }

  /** Records an exception thrown by client code; the run fails at its end. */
  public void fail(Throwable t) {
    if (failure == null) {
      failure = t instanceof RuntimeException r ? r : new IllegalStateException(t);
    }
  }

  /** Runs {@code task}, recording anything it throws as the run's failure. */
  public void guard(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      fail(e);
    }
  }

  /**
   * Returns one leg's network time: the one-way time plus this run's jitter (up to a tenth of it),
   * which every client's requests and responses take, the perfect client's too.
   */
  long latency() {
    return oneWayNanos + (oneWayNanos == 0 ? 0 : random.nextLong(oneWayNanos / 10 + 1));
  }

  private void recordArrival(long nowNanos, boolean allowed) {
    if (allowed) {
      admitted++;
    } else {
      throttled++;
    }
    long window = server.windowNanos();
    long k = Math.floorDiv(nowNanos - originNanos, window);
    long boundary = originNanos + k * window;
    if (boundary >= 0 && nowNanos - boundary < SECOND && k < afterBoundary.length) {
      afterBoundary[(int) k]++;
    }
  }

  private Result result(String client, Reference reference) {
    long[] sorted = Arrays.copyOf(delays, delayCount);
    Arrays.sort(sorted);
    double mean = 0;
    for (long d : sorted) {
      mean += d;
    }
    mean = delayCount == 0 ? 0 : mean / delayCount / 1e6;
    double p99 = delayCount == 0 ? 0
        : sorted[Math.min(delayCount - 1, (int) Math.ceil(0.99 * delayCount) - 1)] / 1e6;
    long end = simulatedNanos();
    long lateAfter = reference.lateAfterNanos();
    int firstLate = upperBound(sorted, lateAfter);
    List<SimServer.QuotaUse> quotas = new ArrayList<>();
    List<SimServer.QuotaUse> used = server.quotaUse(end);
    for (int i = 0; i < used.size(); i++) {
      quotas.add(used.get(i).withPerfect(reference.quotaUnitsBefore(i, end)));
    }
    return new Result(scenario, client, reference.allowedBefore(end), admitted, throttled,
        callsFailed, mean, p99, herd(), clock.eventsRun(), callsRefused, delayCount,
        delayCount - firstLate, truncatedNanos >= 0 ? end : 0, List.copyOf(quotas));
  }

  /** Returns the virtual time simulated: the duration, or less when the run was cut short. */
  long simulatedNanos() {
    return truncatedNanos >= 0 ? truncatedNanos : durationNanos;
  }

  private static int upperBound(long[] sorted, long value) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= value) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Returns the delays of the calls that succeeded, in nanoseconds, in completion order. */
  long[] delays() {
    return Arrays.copyOf(delays, delayCount);
  }

  /**
   * Returns what a perfect client gets in {@code scenario}: each request arrives the first
   * instant the server admits it, over the scenario's duration.
   */
  public static long allowed(Scenario scenario) {
    ServerModel oracle = scenario.model().create(scenario.quota(), scenario.window().toNanos(),
        -scenario.phase().toNanos());
    long durationNanos = scenario.duration().toNanos();
    long count = 0;
    long t = 0;
    while ((t = oracle.nextAdmission(t)) < durationNanos) {
      if (!oracle.admit(t).allowed()) {
        throw new IllegalStateException("model " + scenario.model() + " refused at " + t);
      }
      count++;
    }
    return count;
  }

  private double herd() {
    long window = server.windowNanos();
    long requests = admitted + throttled;
    if (requests == 0) {
      return 0;
    }
    long end = simulatedNanos();
    double meanPerSecond = requests / (end / (double) SECOND);
    double sum = 0;
    int boundaries = 0;
    for (int k = 0; k < afterBoundary.length; k++) {
      long boundary = originNanos + k * window;
      if (boundary >= 0 && boundary + SECOND <= end) {
        sum += afterBoundary[k];
        boundaries++;
      }
    }
    return boundaries == 0 ? 0 : sum / boundaries / meanPerSecond;
  }
}
