package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import java.net.http.HttpClient;
import java.time.Duration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Spring's {@link RestClient} with {@link RateLimitClientHttpRequestInterceptor}, on the
 * {@code JdkClientHttpRequestFactory} a {@code RestClient.builder()} picks by itself when no other
 * HTTP library is on the class path. {@code exchange} hands the caller the status of a 429 too.
 */
final class SpringRestClientAdapter implements Adapter {
  @Override
  public String name() {
    return "spring-restclient";
  }

  @Override
  public Caller open(Pacer pacer) {
    JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build());
    RestClient client = RestClient.builder()
        .requestFactory(factory)
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .build();
    return uri -> client.get().uri(uri).exchange((request, response) -> {
      response.getBody().readAllBytes();
      return response.getStatusCode().value();
    });
  }
}
