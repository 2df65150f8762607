package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Eight OkHttp callers against a server that never answers (it reads the request and stalls):
 * without Headway all eight fail at their read timeout; with Headway the six behind the probes of
 * first contact all go once the probes have gone 550 ms without an answer, not a few at a time.
 * The pacer runs on a virtual clock, OkHttp's read timeout in real time: the assertions are about
 * order and counts (which requests reached the server before any call failed), not about how long
 * anything took.
 */
@Timeout(60)
class HangingServerTest {
  private static final int CALLERS = 8;

  private final VirtualClock clock = VirtualClock.create();
  private Pacer pacer;
  private final ExecutorService callers = Executors.newCachedThreadPool(r -> {
    Thread thread = new Thread(r, "test-caller");
    thread.setDaemon(true);
    return thread;
  });
  private final MockWebServer server = new MockWebServer();

  @BeforeEach
  void start() throws IOException {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE).build();
      }
    });
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() {
    callers.shutdownNow();
    server.close();
  }

  private OkHttpClient client(Duration readTimeout) {
    pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .maxWait(Duration.ofSeconds(30)).build(); // 2 probes on first contact
    return new OkHttpClient.Builder().addInterceptor(RateLimitInterceptor.create(pacer))
        .readTimeout(readTimeout).build();
  }

  /** Starts the callers (blocking calls, one thread each); each future holds how it failed. */
  private List<CompletableFuture<Throwable>> call(OkHttpClient client) {
    List<CompletableFuture<Throwable>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      Request request = new Request.Builder().url(server.url("/items/" + i)).build();
      CompletableFuture<Throwable> failure = new CompletableFuture<>();
      callers.execute(() -> {
        try (Response response = client.newCall(request).execute()) {
          failure.complete(new AssertionError("answered: " + response.code()));
        } catch (Throwable t) {
          failure.complete(t);
        }
      });
      calls.add(failure);
    }
    return calls;
  }

  private static boolean await(BooleanSupplier condition, Duration bound)
      throws InterruptedException {
    long end = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        return false;
      }
      Thread.sleep(5); // real time: waiting for OkHttp's threads, not for the pacer
    }
    return true;
  }

  /**
   * The callers the pacer counts as waiting (asynchronous waiters due at one instant share one
   * task of the clock, so the clock's task count is no count of waiters).
   */
  private int waiting() {
    return pacer.quota(server.url("/").uri()).waiting();
  }

  private static long failed(List<CompletableFuture<Throwable>> calls) {
    return calls.stream().filter(CompletableFuture::isDone).count();
  }

  @Test
  void beforeAnyAnswerTheCallersBehindTheProbesAllGoAfterFiveHundredFiftyMilliseconds()
      throws Exception {
    // Failed before: two more went at 550 ms and the last four at 1.1 s (a doubling bound).
    OkHttpClient client = client(Duration.ofSeconds(5));
    List<CompletableFuture<Throwable>> calls = call(client);
    assertThat(await(() -> server.getRequestCount() == 2 && waiting() >= 6 && clock.pendingTasks() >= 1,
        Duration.ofSeconds(4))).as("the two probes are sent, six callers wait").isTrue();

    clock.advance(Duration.ofMillis(560)); // virtual: the patience before any answer

    assertThat(await(() -> server.getRequestCount() == CALLERS, Duration.ofSeconds(4)))
        .as("every request reached the server (%d did) before a read timeout",
            server.getRequestCount()).isTrue();
    assertThat(failed(calls)).as("no call had failed yet").isZero();
    for (CompletableFuture<Throwable> call : calls) {
      assertThat(call.get(20, TimeUnit.SECONDS)).isInstanceOf(SocketTimeoutException.class);
    }
  }

  @Test
  void aProbeThatTimesOutIsAnAnswerAndTheOthersGoAtOnce() throws Exception {
    OkHttpClient client = client(Duration.ofMillis(500));
    List<CompletableFuture<Throwable>> calls = call(client);
    assertThat(await(() -> failed(calls) == 2, Duration.ofSeconds(10)))
        .as("the two probes time out (real time)").isTrue();
    assertThat(calls.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join))
        .allSatisfy(e -> assertThat(e).isInstanceOf(SocketTimeoutException.class));
    assertThat(server.getRequestCount()).as("no virtual time passed: only the probes went")
        .isEqualTo(2);

    clock.advance(Duration.ofMillis(50)); // one recheck interval, well within the patience

    assertThat(await(() -> server.getRequestCount() == CALLERS, Duration.ofSeconds(4)))
        .as("the six others went as soon as they looked again (%d requests)",
            server.getRequestCount()).isTrue();
    for (CompletableFuture<Throwable> call : calls) {
      assertThat(call.get(20, TimeUnit.SECONDS)).isInstanceOf(SocketTimeoutException.class);
    }
  }
}
