package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.ScriptedServer;
import dev.headway.testing.ScriptedServer.Reply;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client's read timeout of a call Headway held: counted from the call while the server has
 * answered nothing on its partition (the probes of first contact hold the others back), whole
 * after the server answered. Real server, real time for the hanging server (what is measured is
 * when each call fails, from the call); the bounds lean the way that cannot flake on a loaded
 * machine (a call never fails before its timeout; the margin after it is 350 ms, against the
 * 550 ms or more a held caller lost before: 1.5 s and later).
 */
@Timeout(60)
class HeldCallReadTimeoutTest {
  private static final int CALLERS = 8;
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration MARGIN = Duration.ofMillis(350);

  /** When one call failed, from its call, and how. */
  private record Failure(Duration after, Throwable failure) {}

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"execute", "enqueue"})
  void eightCallersAgainstAServerThatNeverAnswersFailAsSoonAsWithoutHeadway(String mode)
      throws Exception {
    // Failed before: the six callers behind the two probes went 550 ms late with the whole read
    // timeout, and failed at about 1.55 s.
    try (ScriptedServer server = ScriptedServer.hanging();
        Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(30)).build()) {
      List<Failure> without = callers(mode, server, new OkHttpClient.Builder());
      List<Failure> failures = callers(mode, server,
          new OkHttpClient.Builder().addInterceptor(RateLimitInterceptor.create(pacer)));
      System.out.printf("okhttp %s: %d callers, read timeout %d ms; failed after (ms) without"
          + " Headway %s, with Headway %s: the last at %.2fx the timeout (%.2fx without)%n", mode,
          CALLERS, READ_TIMEOUT.toMillis(), millis(without), millis(failures),
          ratio(failures), ratio(without));
      assertThat(server.requestCount()).isEqualTo(2 * CALLERS);
      for (Failure failure : failures) {
        assertThat(failure.failure()).isInstanceOf(InterruptedIOException.class); // a timeout
        assertThat(failure.after()).as("failed %s after its call", failure.after())
            .isGreaterThanOrEqualTo(READ_TIMEOUT.minus(Duration.ofMillis(20)))
            .isLessThan(READ_TIMEOUT.plus(MARGIN));
      }
    }
  }

  @Test
  void aWaitForASpentWindowTheServerAnnouncedLeavesTheReadTimeoutWhole() throws Exception {
    VirtualClock clock = VirtualClock.create();
    Duration readTimeout = Duration.ofSeconds(2);
    try (ScriptedServer server = ScriptedServer.start(n -> Optional.of(n == 1
            ? Reply.ok(Duration.ZERO,
                "RateLimit-Policy: \"default\";q=1;w=2\r\nRateLimit: \"default\";r=0;t=2\r\n")
            : Reply.ok(Duration.ofMillis(1200), ""))); // slower than 2 s less the wait
        Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
            .maxWait(Duration.ofSeconds(30)).build()) {
      OkHttpClient client = new OkHttpClient.Builder()
          .addInterceptor(RateLimitInterceptor.create(pacer))
          .readTimeout(readTimeout)
          .build();
      try (Response first = client.newCall(
          new Request.Builder().url(server.url("/a")).build()).execute()) {
        assertThat(first.code()).isEqualTo(200);
      }
      CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> {
        try (Response response = client.newCall(
            new Request.Builder().url(server.url("/b")).build()).execute()) {
          return response.code();
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      });
      URI origin = URI.create(server.url("/"));
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (pacer.quota(origin).waiting() == 0 && System.nanoTime() < end) {
        Thread.sleep(5); // real time: waiting for the caller's thread to reach the pacer
      }
      assertThat(pacer.quota(origin).waiting()).as("the second caller waits").isEqualTo(1);

      while (server.requestCount() < 2 && System.nanoTime() < end) {
        clock.advance(Duration.ofMillis(100)); // virtual: to the window's reset, and its jitter
        Thread.sleep(5); // real time: for the caller's thread to send
      }
      assertThat(clock.elapsed()).as("it waited for the window")
          .isGreaterThan(Duration.ofMillis(1500));

      assertThat(second.get(20, TimeUnit.SECONDS)).as("answered within the whole 2 s")
          .isEqualTo(200);
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  /** Runs the callers with a client built from {@code builder}; returns how each failed. */
  private static List<Failure> callers(String mode, ScriptedServer server,
      OkHttpClient.Builder builder) throws Exception {
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequestsPerHost(CALLERS); // all at once, as the blocking callers go
    OkHttpClient client = builder.dispatcher(dispatcher).readTimeout(READ_TIMEOUT).build();
    List<CompletableFuture<Failure>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      Request request = new Request.Builder().url(server.url("/items/" + i)).build();
      calls.add(mode.equals("execute") ? execute(client, request) : enqueue(client, request));
    }
    List<Failure> failures = new ArrayList<>();
    for (CompletableFuture<Failure> call : calls) {
      failures.add(call.get(20, TimeUnit.SECONDS));
    }
    dispatcher.executorService().shutdown();
    client.connectionPool().evictAll();
    return failures;
  }

  private static List<Long> millis(List<Failure> failures) {
    return failures.stream().map(f -> f.after().toMillis()).sorted().toList();
  }

  private static double ratio(List<Failure> failures) {
    return failures.stream().mapToLong(f -> f.after().toNanos()).max().orElseThrow()
        / (double) READ_TIMEOUT.toNanos();
  }

  private static CompletableFuture<Failure> execute(OkHttpClient client, Request request) {
    CompletableFuture<Failure> failure = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      long start = System.nanoTime();
      try (Response response = client.newCall(request).execute()) {
        failure.completeExceptionally(new AssertionError("answered: " + response.code()));
      } catch (Throwable t) {
        failure.complete(new Failure(Duration.ofNanos(System.nanoTime() - start), t));
      }
    }, "test-caller");
    caller.setDaemon(true);
    caller.start();
    return failure;
  }

  private static CompletableFuture<Failure> enqueue(OkHttpClient client, Request request) {
    CompletableFuture<Failure> failure = new CompletableFuture<>();
    long start = System.nanoTime();
    client.newCall(request).enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        failure.complete(new Failure(Duration.ofNanos(System.nanoTime() - start), e));
      }

      @Override
      public void onResponse(Call call, Response response) {
        response.close();
        failure.completeExceptionally(new AssertionError("answered: " + response.code()));
      }
    });
    return failure;
  }
}
