package dev.headway.contract;

import dev.headway.Pacer;
import dev.headway.spring.webflux.RateLimitExchangeFilterFunction;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * The contract on Spring's {@link WebClient} on Reactor Netty with the filter registered, the
 * way the docs say; the caller reads every status with {@code exchangeToMono} and waits on the
 * result as a future ({@code toFuture().get()}), so an interrupt ends the caller's wait with an
 * {@link InterruptedException} (flag cleared) while the call, still waiting for its permit,
 * sends nothing. A one-shot body is a {@code Flux} that fails when subscribed a second time.
 */
class WebClientContractTest extends AdapterContract {
  @Override
  Caller caller(Pacer pacer) {
    return caller(pacer, new ReactorClientHttpConnector());
  }

  static Caller caller(Pacer pacer, ClientHttpConnector connector) {
    WebClient client = WebClient.builder().clientConnector(connector)
        .filter(RateLimitExchangeFilterFunction.create(pacer)).build();
    return new Caller() {
      @Override
      public Reply send(String method, URI uri, @Nullable String body, boolean oneShot)
          throws Exception {
        WebClient.RequestBodySpec spec = client.method(HttpMethod.valueOf(method)).uri(uri);
        if (body != null && oneShot) {
          AtomicBoolean read = new AtomicBoolean();
          spec.body(BodyInserters.fromPublisher(Flux.defer(() -> read.getAndSet(true)
              ? Flux.error(new IllegalStateException("a one-shot body subscribed twice"))
              : Flux.just(body)), String.class));
        } else if (body != null) {
          spec.bodyValue(body);
        }
        return spec.exchangeToMono(response -> response.bodyToMono(String.class)
                .defaultIfEmpty("")
                .map(text -> new Reply(response.statusCode().value(), text)))
            .toFuture().get();
      }

      @Override
      public Class<? extends Exception> interrupted() {
        return InterruptedException.class;
      }

      @Override
      public boolean interruptFlagKept() {
        return false;
      }

      @Override
      public Throwable cause(Throwable thrown) {
        return thrown instanceof ExecutionException && thrown.getCause() != null
            ? thrown.getCause() : thrown;
      }
    };
  }

  /**
   * The filter records the body as the first attempt writes it, and a retry sends the
   * recording: a body that can be produced only once is sent again, byte for byte.
   */
  @Override
  @Test
  void aBodyThatCanBeReadOnlyOnceIsNeverSentTwice() throws Exception {
    assertRetriedWithTheSameBody(true);
  }
}
