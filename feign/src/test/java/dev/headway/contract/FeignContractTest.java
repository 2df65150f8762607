package dev.headway.contract;

import dev.headway.Pacer;
import dev.headway.feign.RateLimitCapability;
import feign.Body;
import feign.Feign;
import feign.Headers;
import feign.Param;
import feign.RequestLine;
import feign.Response;
import feign.RetryableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The contract on a Feign client built with {@code addCapability}, the way the docs say, on
 * Feign's default {@code Client} and default {@code Retryer}; the caller reads every status by
 * returning {@link Response}. Feign wraps a client's {@link IOException} in a
 * {@link RetryableException}.
 */
class FeignContractTest extends AdapterContract {
  /** Requests to whole URIs: a {@link URI} parameter replaces the target's URL. */
  interface Api {
    @RequestLine("GET")
    Response get(URI uri);

    @RequestLine("POST")
    @Headers("Content-Type: text/plain")
    @Body("{body}")
    Response post(URI uri, @Param("body") String body);
  }

  /** Returns the Feign builder of the client under test, before the capability is added. */
  Feign.Builder feign() {
    return Feign.builder();
  }

  @Override
  Caller caller(Pacer pacer) {
    Api api = feign().addCapability(RateLimitCapability.create(pacer))
        .target(Api.class, server.url("/").toString());
    return new Caller() {
      @Override
      public Reply send(String method, URI uri, @Nullable String body, boolean oneShot)
          throws IOException {
        try (Response response = "POST".equals(method) ? api.post(uri, body == null ? "" : body)
            : api.get(uri)) {
          return new Reply(response.status(), bodyOf(response));
        }
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
        return thrown instanceof RetryableException && thrown.getCause() != null
            ? thrown.getCause() : thrown;
      }
    };
  }

  static String bodyOf(Response response) throws IOException {
    if (response.body() == null) {
      return "";
    }
    try (InputStream in = response.body().asInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * Feign hands a client the request body as a byte array: every request body can be sent again,
   * and a throttled POST is retried with the same bytes.
   */
  @Override
  @Test
  void aBodyThatCanBeReadOnlyOnceIsNeverSentTwice() throws Exception {
    assertRetriedWithTheSameBody(true);
  }
}
