package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.spring.webflux.RateLimitExchangeFilterFunction;
import java.time.Duration;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * Spring's {@link WebClient} on Reactor Netty with {@link RateLimitExchangeFilterFunction}; each
 * worker blocks on its own call, as a servlet application calling out through WebClient does.
 * {@code exchangeToMono} hands the caller the status of a 429 too. Idle connections are closed
 * after 2 s, before Node's servers close theirs (5 s): Reactor Netty keeps them longer by default,
 * and a request sent on a connection the server is closing fails with a reset, with or without
 * Headway.
 */
final class WebClientAdapter implements Adapter {
  @Override
  public String name() {
    return "webclient";
  }

  @Override
  public Caller open(Pacer pacer) {
    ConnectionProvider pool = ConnectionProvider.builder("interop")
        .maxConnections(InteropRun.WORKERS)
        .maxIdleTime(Duration.ofSeconds(2))
        .build();
    WebClient client = WebClient.builder()
        .clientConnector(new ReactorClientHttpConnector(HttpClient.create(pool)))
        .filter(RateLimitExchangeFilterFunction.create(pacer))
        .build();
    return new Caller() {
      @Override
      public int get(java.net.URI uri) {
        Integer status = client.get().uri(uri).exchangeToMono(response -> response
            .releaseBody().thenReturn(response.statusCode().value())).block();
        if (status == null) {
          throw new IllegalStateException("no response for " + uri);
        }
        return status;
      }

      @Override
      public void close() {
        pool.dispose();
      }
    };
  }
}
