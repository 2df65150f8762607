package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.spring.webflux.RateLimitExchangeFilterFunction;
import java.net.URI;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Spring's {@link WebClient} on Reactor Netty with {@link RateLimitExchangeFilterFunction}; each
 * worker blocks on its own call, as a servlet application calling out through WebClient does.
 * {@code exchangeToMono} hands the caller the status of a 429 too.
 */
final class WebClientAdapter implements Adapter {
  @Override
  public String name() {
    return "webclient";
  }

  @Override
  public Caller open(Pacer pacer) {
    WebClient client = WebClient.builder()
        .filter(RateLimitExchangeFilterFunction.create(pacer))
        .build();
    return uri -> {
      Integer status = client.get().uri(uri).exchangeToMono(response -> response
          .releaseBody().thenReturn(response.statusCode().value())).block();
      if (status == null) {
        throw new IllegalStateException("no response for " + uri);
      }
      return status;
    };
  }
}
