package dev.headway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * A caller that does not read a throttled JSON body whose bytes stall (a status-only
 * {@code exchange}, or {@code toBodilessEntity()}) gets its answer after the client's read
 * timeout, with the interceptor as without it. It hung for good before the fix: RestClient closes
 * the response, {@code TappedResponse.close()} drained the original body while Headway's body
 * reader was still blocked on it, and only one of the two reads woke when the read timeout closed
 * the stream.
 */
class SpringUnreadThrottledBodyTest {
  /** Far past the read timeout (1 s) plus one body hint wait, short of the suite's hard limit. */
  private static final Duration LIMIT = Duration.ofSeconds(8);

  @ParameterizedTest
  @ValueSource(strings = {"status-only exchange", "toBodilessEntity"})
  void aCallerThatDoesNotReadAStalledThrottledBodyStillGetsItsAnswer(String how)
      throws Exception {
    try (RawServer server = RawServer.start(e -> e.write(Http.status(429)
        .header("Content-Type", "application/json").header("Content-Length", "100").head())
        .hang())) {
      Function<RestClient, Object> call = client -> how.equals("toBodilessEntity")
          ? client.get().uri(server.uri("/bodiless")).retrieve()
              .onStatus(status -> true, (request, response) -> {})
              .toBodilessEntity().getStatusCode().value()
          : client.get().uri(server.uri("/status"))
              .exchange((request, response) -> response.getStatusCode().value());

      assertThat(within(() -> call.apply(restClient(null)))).as("without Headway")
          .isEqualTo(429);
      Pacer pacer = Pacer.builder().maxWait(Client.MAX_WAIT).maxAttempts(1).build();
      assertThat(within(() -> call.apply(
          restClient(RateLimitClientHttpRequestInterceptor.builder(pacer).build()))))
          .as("with RateLimitClientHttpRequestInterceptor").isEqualTo(429);
    }
  }

  private static RestClient restClient(RateLimitClientHttpRequestInterceptor interceptor) {
    JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(
        java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1)
            .connectTimeout(Client.CONNECT_TIMEOUT).build());
    factory.setReadTimeout(Client.READ_TIMEOUT);
    RestClient.Builder builder = RestClient.builder().requestFactory(factory);
    if (interceptor != null) {
      builder.requestInterceptor(interceptor);
    }
    return builder.build();
  }

  /** The call's result, or a description of where it was stuck after {@link #LIMIT}. */
  private static Object within(java.util.function.Supplier<Object> call) throws Exception {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        outcome.complete(call.get());
      } catch (Throwable t) {
        outcome.complete(t);
      }
    }, "hostile-spring-unread");
    caller.setDaemon(true);
    caller.start();
    try {
      return outcome.get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      StringBuilder where = new StringBuilder("no answer after " + LIMIT + "; the caller at:");
      for (StackTraceElement frame : caller.getStackTrace()) {
        where.append("\n  ").append(frame);
      }
      caller.interrupt();
      return where.toString();
    }
  }
}
