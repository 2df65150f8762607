package dev.headway.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.testing.VirtualClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.QueueDispatcher;
import okio.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * A throttled body whose {@code Content-Encoding} lists a coding after {@code identity}, in one
 * field or two, under a client that decodes it but keeps its {@code Content-Length} (the encoded
 * length): the declared length does not count, the body's hint is read whole, and the caller
 * gets the whole decoded body.
 * Time is virtual.
 */
@Timeout(30)
class EveryContentEncodingTest {
  private static final String BODY =
      "{\"retry_after\": 60, \"detail\": \"" + "x".repeat(5_000) + "\"}";

  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create().autoAdvance(true);
  private Pacer pacer;

  @BeforeEach
  void start() throws Exception {
    QueueDispatcher queue = new QueueDispatcher();
    queue.setFailFast(true); // a request past the script is answered 404, not left waiting
    server.setDispatcher(queue);
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3).build();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  /**
   * Before, with two fields: the read-ahead took the encoded length for the decoded body's and
   * stopped at its 79th byte, so the hint was cut short, the 60 s it said went unread and the
   * request was sent again; the caller got those 79 bytes.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"one field", "two fields"})
  void aGzipThrottledBodyAfterIdentityReachesTheCallerWhole(String fields) throws IOException {
    MockResponse.Builder response = new MockResponse.Builder().code(429)
        .addHeader("Content-Type", "application/json")
        .body(new Buffer().write(gzip(BODY)));
    if (fields.equals("one field")) {
      response.addHeader("Content-Encoding", "identity, gzip");
    } else {
      response.addHeader("Content-Encoding", "identity").addHeader("Content-Encoding", "gzip");
    }
    server.enqueue(response.build());
    RestClient client = RestClient.builder()
        .requestFactory(new SimpleClientHttpRequestFactory())
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .requestInterceptor(decodingGzip())
        .build();

    String reply = client.get().uri(server.url("/a").uri()).exchange((request, answer) ->
        answer.getStatusCode().value() + " "
            + new String(answer.getBody().readAllBytes(), StandardCharsets.UTF_8));

    assertThat(reply).isEqualTo("429 " + BODY);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(pacer.quota(server.url("/").uri()).heldFor()).isPresent(); // the body said 60 s
  }

  private static byte[] gzip(String text) throws IOException {
    ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gzipped)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return gzipped.toByteArray();
  }

  /**
   * An interceptor of the application's after Headway's that decodes a body any of whose codings
   * is gzip and leaves the fields as they came (as Feign's default client does).
   */
  private static ClientHttpRequestInterceptor decodingGzip() {
    return (request, body, execution) -> {
      ClientHttpResponse response = execution.execute(request, body);
      if (!response.getHeaders().getValuesAsList(HttpHeaders.CONTENT_ENCODING)
          .contains("gzip")) {
        return response;
      }
      InputStream decoded = new GZIPInputStream(response.getBody());
      return new ClientHttpResponse() {
        @Override
        public HttpStatusCode getStatusCode() throws IOException {
          return response.getStatusCode();
        }

        @Override
        public String getStatusText() throws IOException {
          return response.getStatusText();
        }

        @Override
        public HttpHeaders getHeaders() {
          return response.getHeaders();
        }

        @Override
        public InputStream getBody() {
          return decoded;
        }

        @Override
        public void close() {
          response.close();
        }
      };
    };
  }
}
