package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.CallerThread;
import dev.headway.testing.HeldCallers;
import dev.headway.testing.HeldCallers.Failure;
import dev.headway.testing.ScriptedServer;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client's read timeout of a call Headway held: counted from the call while the server has
 * answered nothing on its partition, whole after the server answered (see {@link HeldCallers}).
 */
@Timeout(60)
class HeldCallReadTimeoutTest {
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"execute", "enqueue"})
  void eightCallersAgainstAServerThatNeverAnswersFailAsSoonAsWithoutHeadway(String mode)
      throws Exception {
    // Failed before: the six callers behind the two probes went 550 ms late with the whole read
    // timeout, and failed at about 1.55 s.
    HeldCallers.failAsSoonAsWithoutHeadway("okhttp " + mode, "read timeout",
        (server, pacer) -> callers(mode, server, pacer),
        failure -> assertThat(failure).isInstanceOf(InterruptedIOException.class)); // a timeout
  }

  @Test
  void aWaitForASpentWindowTheServerAnnouncedLeavesTheReadTimeoutWhole() throws Exception {
    VirtualClock clock = VirtualClock.create();
    try (ScriptedServer server = HeldCallers.spentWindowThenSlow();
        Pacer pacer = clock.pacer().maxWait(Duration.ofSeconds(30)).build()) {
      OkHttpClient client = new OkHttpClient.Builder()
          .addInterceptor(RateLimitInterceptor.create(pacer))
          .readTimeout(Duration.ofSeconds(2))
          .build();
      try (Response first = client.newCall(
          new Request.Builder().url(server.url("/a")).build()).execute()) {
        assertThat(first.code()).isEqualTo(200);
      }
      CompletableFuture<Integer> second = CallerThread.start(() -> {
        try (Response response = client.newCall(
            new Request.Builder().url(server.url("/b")).build()).execute()) {
          return response.code();
        }
      });
      HeldCallers.passTheWindow(server, pacer, clock);

      assertThat(second.get(20, TimeUnit.SECONDS)).as("answered within the whole 2 s")
          .isEqualTo(200);
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  /** Runs the callers with a client with Headway's {@code pacer} or without; how each failed. */
  private static List<Failure> callers(String mode, ScriptedServer server, @Nullable Pacer pacer)
      throws Exception {
    Dispatcher dispatcher = new Dispatcher();
    // All at once, as the blocking callers go:
    dispatcher.setMaxRequestsPerHost(HeldCallers.CALLERS);
    OkHttpClient.Builder builder = new OkHttpClient.Builder();
    if (pacer != null) {
      builder.addInterceptor(RateLimitInterceptor.create(pacer));
    }
    OkHttpClient client = builder.dispatcher(dispatcher).readTimeout(HeldCallers.TIMEOUT).build();
    List<Failure> failures = HeldCallers.callers(server, url -> {
      Request request = new Request.Builder().url(url).build();
      return mode.equals("execute") ? CallerThread.start(() -> {
        try (Response response = client.newCall(request).execute()) {
          return response.code();
        }
      }) : enqueue(client, request);
    });
    dispatcher.executorService().shutdown();
    client.connectionPool().evictAll();
    return failures;
  }

  private static CompletableFuture<Integer> enqueue(OkHttpClient client, Request request) {
    CompletableFuture<Integer> outcome = new CompletableFuture<>();
    client.newCall(request).enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        outcome.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call call, Response response) {
        response.close();
        outcome.complete(response.code());
      }
    });
    return outcome;
  }
}
