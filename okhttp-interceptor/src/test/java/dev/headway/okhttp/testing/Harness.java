package dev.headway.okhttp.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.okhttp.RateLimitInterceptor;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * One test's world: a virtual clock driving a {@link Pacer}, a {@link TestServer} that records
 * when (in virtual time) each request arrived, and an OkHttp client with the interceptor.
 *
 * <p>{@link #close()} fails the test if a response was leaked: it evicts the connection pool and
 * expects it empty (a connection whose response was never closed stays allocated), and expects
 * nothing logged on OkHttp's {@code okhttp3.OkHttpClient} logger (where the "A connection to ...
 * was leaked" warning goes).
 */
public final class Harness implements AutoCloseable {
  /** The real-time bound on any one test step; a step that takes longer is a hang. */
  static final Duration STEP_TIMEOUT = Duration.ofSeconds(20);

  private static final Logger OKHTTP_LOGGER = Logger.getLogger("okhttp3.OkHttpClient");

  /** Time for everything: the pacer's ticker, wall clock and scheduler. */
  public final VirtualClock clock = VirtualClock.create();

  private final Deque<Reply> replies = new ArrayDeque<>();
  private final List<Sent> sent = new ArrayList<>();
  private final List<LogRecord> okhttpLog = new ArrayList<>();
  private final Handler logHandler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      synchronized (okhttpLog) {
        okhttpLog.add(record);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final ExecutorService callers = Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "test-caller");
    thread.setDaemon(true);
    return thread;
  });
  private final TestServer server;
  private Reply fallback = Reply.status(599).body("no reply queued");
  private Pacer pacer;
  private RateLimitInterceptor interceptor;
  private OkHttpClient client;

  /** A request the server received, and when. */
  public record Sent(Recorded request, Duration at) {}

  private Harness() throws IOException {
    OKHTTP_LOGGER.addHandler(logHandler);
    OKHTTP_LOGGER.setLevel(Level.ALL);
    server = TestServer.start(this::answer);
    pacer(UnaryOperator.identity());
  }

  /** Starts a harness with a default pacer (on the virtual clock) and client. */
  public static Harness start() throws IOException {
    return new Harness();
  }

  /** Returns a pacer builder on this harness's virtual clock. */
  public Pacer.Builder pacerBuilder() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock);
  }

  /** Replaces the pacer (configured from {@link #pacerBuilder()}), interceptor and client. */
  public Harness pacer(UnaryOperator<Pacer.Builder> config) {
    Pacer built = config.apply(pacerBuilder()).build();
    return interceptor(RateLimitInterceptor.create(built));
  }

  /** Replaces the interceptor and client. */
  public Harness interceptor(RateLimitInterceptor interceptor) {
    return client(interceptor, UnaryOperator.identity());
  }

  /** Replaces the interceptor and client, configuring the client further. */
  public Harness client(RateLimitInterceptor interceptor,
      UnaryOperator<OkHttpClient.Builder> config) {
    this.interceptor = interceptor;
    this.pacer = interceptor.pacer();
    this.client = config.apply(new OkHttpClient.Builder().addInterceptor(interceptor)).build();
    return this;
  }

  /** Returns the pacer. */
  public Pacer pacer() {
    return pacer;
  }

  /** Returns the interceptor. */
  public RateLimitInterceptor interceptor() {
    return interceptor;
  }

  /** Returns the client. */
  public OkHttpClient client() {
    return client;
  }

  /** Queues replies, sent in order; after them the server answers with the fallback. */
  public synchronized Harness enqueue(Reply... replies) {
    this.replies.addAll(List.of(replies));
    return this;
  }

  /** Sets the reply sent when the queue is empty (initially a 599 "no reply queued"). */
  public synchronized Harness fallback(Reply reply) {
    this.fallback = reply;
    return this;
  }

  private Reply answer(Recorded request) {
    synchronized (this) {
      sent.add(new Sent(request, clock.elapsed()));
      Reply next = replies.poll();
      return next != null ? next : fallback;
    }
  }

  /** Returns the requests the server received, in order, with their virtual arrival time. */
  public synchronized List<Sent> sent() {
    return List.copyOf(sent);
  }

  /** Returns the number of requests the server received. */
  public int requestCount() {
    return server.requestCount();
  }

  /** Returns a GET request for {@code path} on the test server. */
  public Request get(String path) {
    return new Request.Builder().url(server.url(path)).build();
  }

  /** Returns the URL of {@code path} on the test server. */
  public okhttp3.HttpUrl url(String path) {
    return server.url(path);
  }

  /** Starts {@code request} in {@code mode}; the future completes when the call ends. */
  public CompletableFuture<Outcome> start(Mode mode, Request request) {
    return start(mode, client.newCall(request));
  }

  /** Starts {@code call} in {@code mode}; the future completes when the call ends. */
  public CompletableFuture<Outcome> start(Mode mode, Call call) {
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    if (mode == Mode.SYNC) {
      callers.execute(() -> {
        try (Response response = call.execute()) {
          outcome.complete(read(response));
        } catch (IOException e) {
          outcome.complete(Outcome.failed(e));
        } catch (Throwable t) {
          outcome.completeExceptionally(t);
        }
      });
    } else {
      call.enqueue(new Callback() {
        @Override
        public void onFailure(Call c, IOException e) {
          outcome.complete(Outcome.failed(e));
        }

        @Override
        public void onResponse(Call c, Response response) {
          try (response) {
            outcome.complete(read(response));
          } catch (IOException e) {
            outcome.complete(Outcome.failed(e));
          } catch (Throwable t) {
            outcome.completeExceptionally(t);
          }
        }
      });
    }
    return outcome;
  }

  private static Outcome read(Response response) throws IOException {
    ResponseBody body = response.body();
    return new Outcome(response.code(), response.headers(), body == null ? "" : body.string(),
        null);
  }

  /** Sends {@code request} in {@code mode}, letting virtual time pass as the call waits. */
  public Outcome send(Mode mode, Request request) throws InterruptedException {
    return drive(start(mode, request));
  }

  /**
   * Waits for {@code future}, moving the virtual clock to each scheduled task's deadline
   * whenever nothing else happens: the waits of the pacer and the interceptor pass in virtual
   * time, instantly.
   */
  public <T> T drive(CompletableFuture<T> future) throws InterruptedException {
    long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
    while (true) {
      try {
        return future.get(5, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        List<Duration> delays = clock.pendingDelays();
        if (!delays.isEmpty()) {
          clock.advance(delays.get(0));
        }
      } catch (ExecutionException e) {
        throw new AssertionError(e.getCause());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("call did not end within " + STEP_TIMEOUT + " (real time)");
      }
    }
  }

  /** Waits (real time, bounded) for {@code future} without moving the virtual clock. */
  public static <T> T await(CompletableFuture<T> future) throws InterruptedException {
    try {
      return future.get(STEP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("did not complete within " + STEP_TIMEOUT + " (real time)");
    }
  }

  /** Blocks (real time, bounded, polling every 5 ms) until {@code condition} holds. */
  public void awaitCondition(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
    Object monitor = new Object();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("condition not met within " + STEP_TIMEOUT + " (real time)");
      }
      synchronized (monitor) {
        monitor.wait(5);
      }
    }
  }

  /**
   * Blocks (real time, bounded) until the pacer counts at least {@code count} callers waiting on
   * the server's partition and the clock's tasks have settled: asynchronous waiters due at one
   * instant share one task of the clock, so the clock's task count is no count of waiters.
   */
  public void awaitWaitingCallers(int count) throws InterruptedException {
    awaitCondition(() -> waitingCallers() >= count);
    awaitSettled();
  }

  /** How many callers the pacer counts as waiting on the server's partition. */
  public int waitingCallers() {
    return pacer().quota(server.url("/").uri()).waiting();
  }

  /** Waits (real time) until the clock's tasks and the waiting callers stop changing for 20 ms. */
  public void awaitSettled() throws InterruptedException {
    long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
    int tasks = -1;
    int waiting = -1;
    Object monitor = new Object();
    while (tasks != clock.pendingTasks() || waiting != waitingCallers()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("the clock's tasks did not settle within " + STEP_TIMEOUT);
      }
      tasks = clock.pendingTasks();
      waiting = waitingCallers();
      synchronized (monitor) {
        monitor.wait(20);
      }
    }
  }

  /** Blocks (real time, bounded) until {@code count} waits are scheduled on the clock. */
  public void awaitWaits(int count) throws InterruptedException {
    clock.awaitPendingTasks(count, STEP_TIMEOUT);
  }

  /**
   * Checks that no response leaked (the connection pool empties and OkHttp logged nothing), then
   * stops the server and threads.
   */
  @Override
  public void close() throws IOException {
    try {
      client.dispatcher().executorService().shutdown();
      callers.shutdownNow();
      assertNoLeakedConnection();
    } finally {
      OKHTTP_LOGGER.removeHandler(logHandler);
      server.close();
    }
  }

  /** Fails if a connection is still allocated to a call or OkHttp logged a warning. */
  public void assertNoLeakedConnection() {
    client.connectionPool().evictAll();
    assertThat(client.connectionPool().connectionCount())
        .as("connections still allocated after evictAll (a response was not closed)")
        .isZero();
    synchronized (okhttpLog) {
      assertThat(okhttpLog).extracting(LogRecord::getMessage)
          .as("logged by okhttp3.OkHttpClient").isEmpty();
    }
  }

  /** Returns what OkHttp's client logger logged so far. */
  public List<LogRecord> okhttpLog() {
    synchronized (okhttpLog) {
      return List.copyOf(okhttpLog);
    }
  }

  /** Forgets what OkHttp's client logger logged so far (after a deliberate leak). */
  public void okhttpLogClear() {
    synchronized (okhttpLog) {
      okhttpLog.clear();
    }
  }

  /** Returns the MockWebServer flavour in use. */
  public String serverFlavour() {
    return server.flavour();
  }
}
