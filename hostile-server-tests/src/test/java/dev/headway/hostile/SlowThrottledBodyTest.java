package dev.headway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import dev.headway.testing.CallerThread;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A throttled JSON body that has not arrived is not waited for: the call goes on (retried or
 * returned) while the server still holds the body back, and a caller that gets the response still
 * reads the whole body, byte for byte. The server releases the body only after the call returned,
 * so a call that waits for it cannot complete at all; the clients' read timeouts are far longer
 * than the bound asserted.
 */
@Execution(ExecutionMode.SAME_THREAD)
class SlowThrottledBodyTest {
  @org.junit.jupiter.api.BeforeAll
  static void warmUp() {
    Client.warmUp();
  }

  private static final String JSON = "{\"error\":{\"message\":\"slow down\",\"retry_after\":0}}";
  private static final Duration LONG_TIMEOUT = Duration.ofSeconds(15);
  /** Far more than Headway's wait for a body, far less than the clients' timeouts. */
  private static final long BOUND_SECONDS = 5;

  private static RawServer withheldBodyThen200(CountDownLatch release) throws Exception {
    return RawServer.start(e -> {
      if (e.index == 0) {
        e.write(Http.status(429).header("Content-Type", "application/json")
            .header("Retry-After", "0")
            .header("Content-Length", String.valueOf(JSON.length())).head());
        release.await(RawServer.SAFETY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        e.write(JSON);
      } else {
        e.write(Http.status(200).body("ok"));
      }
    });
  }

  @ParameterizedTest
  @EnumSource(names = {"OKHTTP_EXECUTE", "OKHTTP_ENQUEUE"})
  void okHttpDoesNotWaitForAThrottledBodyAndTheCallerStillGetsAllOfIt(Client mode)
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (RawServer server = withheldBodyThen200(release)) {
      Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(2)).build();
      OkHttpClient client = Client.OKHTTP.newBuilder().readTimeout(LONG_TIMEOUT)
          .addInterceptor(RateLimitInterceptor.create(pacer)).build();
      Call call = client.newCall(new Request.Builder().url(server.uri("/slow").toString())
          .build());
      CompletableFuture<Response> outcome = new CompletableFuture<>();
      if (mode == Client.OKHTTP_EXECUTE) {
        Thread caller = new Thread(() -> {
          try {
            outcome.complete(call.execute());
          } catch (Throwable t) {
            outcome.completeExceptionally(t);
          }
        });
        caller.setDaemon(true);
        caller.start();
      } else {
        call.enqueue(new Callback() {
          @Override
          public void onFailure(Call c, java.io.IOException e) {
            outcome.completeExceptionally(e);
          }

          @Override
          public void onResponse(Call c, Response response) {
            outcome.complete(response);
          }
        });
      }

      Response response;
      try {
        response = outcome.get(BOUND_SECONDS, TimeUnit.SECONDS);
      } finally {
        release.countDown();
      }

      try (response) {
        // A body still arriving cannot be let go of without waiting: the 429 comes back as is.
        assertThat(response.code()).isEqualTo(429);
        assertThat(response.body().string()).isEqualTo(JSON);
      }
      assertThat(server.requests()).isEqualTo(1);
      assertThat(HostileServerSuiteTest.inFlight(pacer)).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(names = {"JDK_SEND", "JDK_SEND_ASYNC"})
  void theJdkClientDoesNotWaitForAThrottledBodyBeforeDecidingToRetry(Client mode)
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (RawServer server = withheldBodyThen200(release)) {
      Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(2)).build();
      RateLimitedHttpClient client = RateLimitedHttpClient.wrap(Client.JDK, pacer);
      HttpRequest request = HttpRequest.newBuilder(server.uri("/slow")).build();
      CompletableFuture<HttpResponse<String>> outcome = mode == Client.JDK_SEND_ASYNC
          ? client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
          : CallerThread.start(() -> client.send(request, HttpResponse.BodyHandlers.ofString()));

      HttpResponse<String> response;
      try {
        response = outcome.get(BOUND_SECONDS, TimeUnit.SECONDS);
      } finally {
        release.countDown();
      }

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok");
      assertThat(server.requests()).isEqualTo(2);
      HostileServerSuiteTest.awaitTrue(() -> HostileServerSuiteTest.inFlight(pacer) == 0,
          Duration.ofSeconds(2));
      assertThat(HostileServerSuiteTest.inFlight(pacer)).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(names = {"JDK_SEND", "JDK_SEND_ASYNC"})
  void aThrottledBodyTheJdkClientReturnsReachesTheCallerWhole(Client mode) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    // maxAttempts 2 and a Retry-After past maxWait: decided from the headers, not retried; the
    // body is still read for hints while it may decide otherwise, and then delivered.
    try (RawServer server = RawServer.start(e -> {
      e.write(Http.status(429).header("Content-Type", "application/json")
          .header("Content-Length", String.valueOf(JSON.length())).head());
      release.await(RawServer.SAFETY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      e.write(JSON);
    })) {
      Pacer pacer = Pacer.builder().maxWait(Duration.ofMillis(200)).maxAttempts(2).build();
      RateLimitedHttpClient client = RateLimitedHttpClient.wrap(Client.JDK, pacer);
      HttpRequest request = HttpRequest.newBuilder(server.uri("/slow")).build();
      CompletableFuture<HttpResponse<InputStream>> outcome = mode == Client.JDK_SEND_ASYNC
          ? client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
          : CallerThread.start(
              () -> client.send(request, HttpResponse.BodyHandlers.ofInputStream()));

      HttpResponse<InputStream> response;
      try {
        response = outcome.get(BOUND_SECONDS, TimeUnit.SECONDS);
      } finally {
        release.countDown();
      }

      assertThat(response.statusCode()).isEqualTo(429);
      try (InputStream body = response.body()) {
        assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(JSON);
      }
    }
  }
}
