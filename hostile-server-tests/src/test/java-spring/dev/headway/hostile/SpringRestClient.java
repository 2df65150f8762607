package dev.headway.hostile;

import dev.headway.Pacer;
import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * {@link Client#SPRING_REST_CLIENT}: Spring's own {@link RestClient} with
 * {@link RateLimitClientHttpRequestInterceptor}, and the same {@code RestClient} without it.
 *
 * <p>The request factory is a {@link JdkClientHttpRequestFactory} over a java.net.http
 * {@link HttpClient} (HTTP/1.1, {@link Client#CONNECT_TIMEOUT}) with a read timeout of
 * {@link Client#READ_TIMEOUT}, the way a user sets one up. It is the factory a
 * {@code RestClient.builder()} picks by itself when no other HTTP library is on the class path,
 * and it is the one whose plain behaviour the suite already knows: it is java.net.http underneath,
 * like {@link Client#JDK_SEND}, so the JDK's own quirks (a connection left open after a response
 * it cannot parse) are accounted the same way ({@link Client#overJavaNetHttp()}). Spring 6.2's read
 * timeout on this factory runs from the send until the body is closed: when it fires it cancels
 * the exchange, or closes the body if the headers are in. {@code SimpleClientHttpRequestFactory}
 * (HttpURLConnection) was not taken: it sends a GET a second time by itself when the connection
 * ends before a response (one call through it to a server that closes before any byte: two
 * requests), so the requests the server counts per call would no longer be Headway's alone.
 *
 * <p>A call maps onto the suite's outcome as the other clients' do: the status (through
 * {@code exchange}, so that a 4xx or 5xx is a status and a body, not an exception), the body read
 * and closed as {@link Client#drain} reads the others (for at most {@link Client#DRAIN_LIMIT},
 * then closed under the reader), and the failure. Spring reports an I/O failure as a
 * {@link ResourceAccessException} wrapping the client's {@link IOException}: that is Spring's
 * form of "an IOException reached the caller", so the {@link IOException} is what the suite sees
 * (its class is compared, a {@code ProtocolException} counted). Anything else Spring throws
 * reaches the suite as it is and must be what the same {@code RestClient} throws without Headway.
 */
final class SpringRestClient implements Client.External {
  private static final HttpClient JDK = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Client.CONNECT_TIMEOUT)
      .executor(Client.pool("hostile-spring"))
      .build();

  private static final RestClient PLAIN = builder().build();

  /** Loaded by {@link Client} by name. */
  SpringRestClient() {}

  private static RestClient.Builder builder() {
    JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(JDK);
    factory.setReadTimeout(Client.READ_TIMEOUT);
    return RestClient.builder().requestFactory(factory);
  }

  @Override
  public Client.Sender paced(Pacer pacer) {
    RestClient client = builder()
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.builder(pacer).build())
        .build();
    return (uri, at) -> send(client, uri, at);
  }

  @Override
  public Client.Sender plain() {
    return (uri, at) -> send(PLAIN, uri, at);
  }

  /**
   * Sends one GET on a thread of its own (as {@link Client#JDK_SEND} does), so that a call that
   * never returns fails the case instead of hanging the suite.
   */
  private static int send(RestClient client, URI uri, long[] at) throws Throwable {
    CompletableFuture<Integer> sent = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        sent.complete(client.get().uri(uri).exchange((request, response) -> {
          at[0] = System.nanoTime();
          int status = response.getStatusCode().value();
          InputStream body = response.getBody();
          ScheduledFuture<?> stop = Client.WATCHDOG.schedule(() -> Client.closeQuietly(body),
              Client.DRAIN_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
          // Closed here, before RestClient closes the response: Spring's close drains the body
          // to its end first, which for a body that never ends is its read timeout later.
          try (body) {
            Client.drain(body);
          } catch (IOException | RuntimeException e) {
            // The body is the server's problem and the user's: the call itself is what is checked.
          } finally {
            stop.cancel(false);
          }
          return status;
        }));
      } catch (Throwable t) {
        sent.completeExceptionally(t);
      }
    }, "hostile-spring-caller");
    caller.setDaemon(true);
    caller.start();
    try {
      return sent.get(Client.HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable failure = e.getCause();
      if (failure instanceof ResourceAccessException
          && failure.getCause() instanceof IOException io) {
        throw io;
      }
      throw failure;
    } catch (TimeoutException e) {
      // Where the caller is stuck, for the report: taken before the interrupt moves it.
      Throwable where = new Throwable("where the caller was");
      where.setStackTrace(caller.getStackTrace());
      caller.interrupt();
      throw new AssertionError("RestClient: no outcome after " + Client.HARD_LIMIT, where);
    }
  }
}
