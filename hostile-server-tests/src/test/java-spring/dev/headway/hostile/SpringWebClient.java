package dev.headway.hostile;

import dev.headway.Pacer;
import dev.headway.spring.webflux.RateLimitExchangeFilterFunction;
import io.netty.channel.ChannelOption;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * {@link Client#WEBCLIENT}: Spring's {@link WebClient} on Reactor Netty with
 * {@link RateLimitExchangeFilterFunction}, and the same {@code WebClient} without it.
 *
 * <p>The connector is a {@link ReactorClientHttpConnector} over a Reactor Netty
 * {@link HttpClient} with a connect timeout of {@link Client#CONNECT_TIMEOUT} and a response
 * timeout of {@link Client#READ_TIMEOUT} (to the headers and between reads), the way a user sets
 * one up; it is what Spring Boot's WebFlux starter brings. A call reads the status through
 * {@code exchangeToMono} (a 4xx or 5xx is a status and a body, not an exception) and the body as
 * {@link Client#drain} reads the others: up to {@link Client#DRAIN_BYTES} for at most
 * {@link Client#DRAIN_LIMIT}, then cancelled. WebClient reports an I/O failure as a
 * {@link WebClientRequestException} wrapping the connector's exception: where that is an
 * {@link IOException}, the {@link IOException} is what the suite sees, as for Spring's
 * {@code RestClient}. Anything else reaches the suite as it is and must be what the same
 * {@code WebClient} throws without Headway.
 */
final class SpringWebClient implements Client.External {
  private static final HttpClient NETTY = HttpClient.create()
      .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Client.CONNECT_TIMEOUT.toMillis())
      .responseTimeout(Client.READ_TIMEOUT);

  private static final WebClient PLAIN = builder().build();

  /** Loaded by {@link Client} by name. */
  SpringWebClient() {}

  private static WebClient.Builder builder() {
    return WebClient.builder().clientConnector(new ReactorClientHttpConnector(NETTY));
  }

  @Override
  public Client.Sender paced(Pacer pacer) {
    WebClient client = builder()
        .filter(RateLimitExchangeFilterFunction.builder(pacer).build())
        .build();
    return (uri, at) -> send(client, uri, at);
  }

  @Override
  public Client.Sender plain() {
    return (uri, at) -> send(PLAIN, uri, at);
  }

  private static int send(WebClient client, URI uri, long[] at) throws Throwable {
    CompletableFuture<Integer> sent = client.get().uri(uri).exchangeToMono(response -> {
      at[0] = System.nanoTime();
      int status = response.statusCode().value();
      return response.body(BodyExtractors.toDataBuffers())
          .map(SpringWebClient::released)
          .scan(0L, Long::sum)
          .takeUntil(total -> total >= Client.DRAIN_BYTES)
          .take(Client.DRAIN_LIMIT)
          .onErrorResume(e -> Mono.empty()) // the body is not what is checked
          .then(Mono.just(status));
    }).toFuture();
    try {
      return sent.get(Client.HARD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable failure = e.getCause();
      if (failure instanceof WebClientRequestException
          && failure.getCause() instanceof IOException io) {
        throw io;
      }
      throw failure;
    } catch (TimeoutException e) {
      sent.cancel(true);
      throw new AssertionError("WebClient: no outcome after " + Client.HARD_LIMIT);
    }
  }

  private static long released(DataBuffer buffer) {
    long count = buffer.readableByteCount();
    DataBufferUtils.release(buffer);
    return count;
  }
}
