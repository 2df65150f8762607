package dev.headway.contract;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
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

  /**
   * Feign's default retryer caps a {@code Retry-After} wait at one second: a server asking for 30
   * s would be asked again every second. With the capability the one retry goes out 30 s after
   * the 429 (virtual time, no jitter here), on this Feign client whichever it is.
   */
  @Test
  void aRetryAfterOf30SecondsIsWaitedInFullNotEverySecond() throws Exception {
    letTimePass();
    enqueue(429, "slow down", "Retry-After", "30");
    enqueue(200, "ok");
    Instant[] sentAt = new Instant[2];
    AtomicInteger seen = new AtomicInteger();
    Dispatcher queue = server.getDispatcher();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request)
          throws InterruptedException {
        int n = seen.getAndIncrement();
        if (n < sentAt.length) {
          sentAt[n] = clock.instant(); // when the request reached the server, in paced time
        }
        return queue.dispatch(request);
      }
    });

    Reply reply = get(caller(pacer(b -> b.maxWait(Duration.ofSeconds(60)))), "/a");

    assertThat(reply).isEqualTo(new Reply(200, "ok"));
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(Duration.between(sentAt[0], sentAt[1]))
        .isBetween(Duration.ofSeconds(30), Duration.ofSeconds(31));
  }
}
