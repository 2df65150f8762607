package dev.headway.contract;

import dev.headway.Pacer;
import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * The contract on Spring's {@link RestClient} with the interceptor registered, the way the docs
 * say; the caller reads every status with {@code exchange}, as the other clients do. Spring wraps
 * an {@link java.io.IOException} in {@link ResourceAccessException}.
 */
class SpringRestClientContractTest extends AdapterContract {
  @Override
  Caller caller(Pacer pacer) {
    RestClient client = RestClient.builder()
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer)).build();
    return new Caller() {
      @Override
      public Reply send(String method, URI uri, @Nullable String body, boolean oneShot) {
        RestClient.RequestBodySpec spec = client.method(HttpMethod.valueOf(method)).uri(uri);
        if (body != null) {
          spec.body(body);
        }
        return spec.exchange((request, response) -> new Reply(response.getStatusCode().value(),
            new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8)));
      }

      @Override
      public Class<? extends Exception> interrupted() {
        return InterruptedIOException.class;
      }

      @Override
      public boolean interruptFlagKept() {
        return true;
      }

      @Override
      public Throwable cause(Throwable thrown) {
        return thrown instanceof ResourceAccessException && thrown.getCause() != null
            ? thrown.getCause() : thrown;
      }
    };
  }

  /**
   * Spring hands an interceptor the body as a byte array: every request body can be sent again,
   * and a throttled POST is retried with the same bytes.
   */
  @Override
  @Test
  void aBodyThatCanBeReadOnlyOnceIsNeverSentTwice() throws Exception {
    assertRetriedWithTheSameBody(true);
  }
}
