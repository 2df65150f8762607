package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.testing.VirtualClock;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A throttled body whose bytes have all arrived but whose end the client signals only after
 * {@link dev.headway.internal.adapter.BodyHints#WAIT}, as an I/O thread does on a machine so busy
 * that it is descheduled between the last bytes and the end (seen with the JDK client on a CI run
 * at load 16 on 2 cores: the body's {@code retry_after} was lost and the call retried after 1 s).
 * An exec chain handler placed after Headway's passes every byte of the 429's body on time and
 * holds back only its end (and the exchange's completion) until Headway asked for the retry.
 */
@Timeout(30)
class LateBodyEndTest {

  @Test
  void readsTheHintOfABodyWhoseDeclaredLengthArrivedBeforeItsEnd() throws Exception {
    VirtualClock clock = VirtualClock.create();
    LateEnd lateEnd = new LateEnd(clock);
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getByName("127.0.0.1"), 0);
      server.enqueue(new MockResponse.Builder().code(429)
          .addHeader("Content-Type", "application/json").body("{\"retry_after\": 3}").build());
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      Pacer pacer = clock.pacer().jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
          .maxWait(Duration.ofSeconds(30)).maxAttempts(3).build();
      CloseableHttpAsyncClient client = RateLimitAsyncExecChainHandler.create(pacer)
          .addTo(HttpAsyncClients.custom())
          .addExecInterceptorBefore(ChainElement.PROTOCOL.name(), "late-end", lateEnd)
          .build();
      client.start();
      try {
        Future<SimpleHttpResponse> call = client.execute(
            SimpleRequestBuilder.get(server.url("/").uri()).build(), null);
        SimpleHttpResponse response = clock.await(call);

        assertThat(response.getCode()).isEqualTo(200);
        assertThat(new String(response.getBodyBytes(), StandardCharsets.UTF_8)).isEqualTo("ok");
        assertThat(server.getRequestCount()).isEqualTo(2);
        assertThat(lateEnd.lateEnds.get()).as("429 bodies whose end was held back").isEqualTo(1);
        assertThat(lateEnd.retriedAfter.get()).as("the retry, after the call began")
            .isBetween(Duration.ofSeconds(3), Duration.ofSeconds(30));
      } finally {
        client.close(CloseMode.IMMEDIATE);
      }
    }
  }

  /**
   * Between Headway and HttpClient's protocol element: a 429's body bytes go to Headway as they
   * come; its end and the exchange's completion wait until Headway sends the next request, which
   * it can only do once it decided about the 429 (from its body, or at the end of
   * {@code BodyHints.WAIT} without it). No timer of the test's own: a 429 Headway never decides
   * about leaves the call unfinished, which the test reports after its real-time bound.
   */
  private static final class LateEnd implements AsyncExecChainHandler {
    private final VirtualClock clock;
    final AtomicInteger lateEnds = new AtomicInteger();
    final AtomicReference<Duration> retriedAfter = new AtomicReference<>();
    /** What to deliver once the next request goes out. */
    private final AtomicReference<Runnable> held = new AtomicReference<>();
    private final AtomicInteger requests = new AtomicInteger();

    LateEnd(VirtualClock clock) {
      this.clock = clock;
    }

    @Override
    public void execute(HttpRequest request, AsyncEntityProducer entity,
        AsyncExecChain.Scope scope, AsyncExecChain chain, AsyncExecCallback headway)
        throws HttpException, IOException {
      if (requests.incrementAndGet() == 2) {
        retriedAfter.set(clock.elapsed());
      }
      Runnable late = held.getAndSet(null);
      if (late != null) {
        late.run();
      }
      chain.proceed(request, entity, scope, new AsyncExecCallback() {
        private volatile boolean throttled;

        @Override
        public AsyncDataConsumer handleResponse(HttpResponse response, EntityDetails details)
            throws HttpException, IOException {
          AsyncDataConsumer consumer = headway.handleResponse(response, details);
          throttled = response.getCode() == 429 && consumer != null;
          return !throttled ? consumer : new AsyncDataConsumer() {
            @Override
            public void updateCapacity(CapacityChannel capacity) throws IOException {
              consumer.updateCapacity(capacity);
            }

            @Override
            public void consume(ByteBuffer src) throws IOException {
              consumer.consume(src);
            }

            @Override
            public void streamEnd(List<? extends Header> trailers)
                throws HttpException, IOException {
              lateEnds.incrementAndGet();
              held.set(() -> {
                try {
                  consumer.streamEnd(trailers);
                } catch (HttpException | IOException e) {
                  throw new IllegalStateException(e);
                }
                headway.completed();
              });
            }

            @Override
            public void releaseResources() {
              consumer.releaseResources();
            }
          };
        }

        @Override
        public void handleInformationResponse(HttpResponse response)
            throws HttpException, IOException {
          headway.handleInformationResponse(response);
        }

        @Override
        public void completed() {
          if (!throttled) {
            headway.completed(); // a throttled exchange completes with its held-back end
          }
        }

        @Override
        public void failed(Exception cause) {
          headway.failed(cause);
        }
      });
    }
  }
}
