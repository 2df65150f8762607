package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.feign.RateLimitCapability;
import feign.Feign;
import feign.RequestLine;
import feign.Response;
import feign.Target;
import java.io.InputStream;
import java.net.URI;

/**
 * Feign with its default client ({@code HttpURLConnection}) and retryer, and
 * {@link RateLimitCapability}. The interface returns {@link Response}, so that a 429 reaches the
 * caller as a status rather than through Feign's {@code ErrorDecoder}.
 */
final class FeignAdapter implements Adapter {
  /** The API as a Feign user declares it; the URI argument names the server. */
  interface Work {
    @RequestLine("GET")
    Response get(URI uri);
  }

  @Override
  public String name() {
    return "feign";
  }

  @Override
  public Caller open(Pacer pacer) {
    Work work = Feign.builder()
        .addCapability(RateLimitCapability.create(pacer))
        .target(Target.EmptyTarget.create(Work.class));
    return uri -> {
      try (Response response = work.get(uri)) {
        if (response.body() != null) {
          try (InputStream body = response.body().asInputStream()) {
            body.readAllBytes();
          }
        }
        return response.status();
      }
    };
  }
}
