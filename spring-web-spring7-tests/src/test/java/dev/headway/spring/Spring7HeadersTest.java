package dev.headway.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.util.concurrent.atomic.AtomicBoolean;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;
import org.springframework.web.client.RestClient;

/**
 * Headway's header reading on Spring 7, where {@link HttpHeaders} is no longer a {@code Map}:
 * every value of every header reaches the pacer, and a {@link LinkageError} from Spring's
 * headers (what Spring 7 threw at the adapter that called {@code entrySet}) never fails a call.
 */
@Timeout(30)
class Spring7HeadersTest {
  private final MockWebServer server = new MockWebServer();
  private final Pacer pacer = Pacer.create();

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
    pacer.close();
  }

  @Test
  void everyValueOfEveryHeaderIsCopiedInOrder() {
    HttpHeaders headers = new HttpHeaders();
    headers.add("RateLimit-Policy", "\"a\";q=5;w=5");
    headers.add("Retry-After", "2");
    headers.add("RateLimit-Policy", "\"b\";q=100;w=60");

    HttpFields fields = SpringExchange.fields(headers);

    assertThat(fields.values("ratelimit-policy"))
        .containsExactly("\"a\";q=5;w=5", "\"b\";q=100;w=60");
    assertThat(fields.values("retry-after")).containsExactly("2");
  }

  @Test
  void repeatedRateLimitFieldsOfAResponseAllReachThePacer() {
    server.enqueue(new MockResponse.Builder().code(200).body("ok")
        .addHeader("RateLimit-Policy", "\"a\";q=5;w=5")
        .addHeader("RateLimit-Policy", "\"b\";q=100;w=60")
        .addHeader("RateLimit", "\"a\";r=4;t=5")
        .addHeader("RateLimit", "\"b\";r=99;t=60")
        .build());
    RestClient client = RestClient.builder()
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer)).build();

    assertThat(client.get().uri(uri("/items")).retrieve().body(String.class)).isEqualTo("ok");

    QuotaSnapshot quota = pacer.quota(uri("/"));
    assertThat(quota.policy("a").map(PolicySnapshot::limit))
        .hasValueSatisfying(limit -> assertThat(limit).hasValue(5));
    assertThat(quota.policy("b").map(PolicySnapshot::limit))
        .hasValueSatisfying(limit -> assertThat(limit).hasValue(100));
  }

  @Test
  void aLinkageErrorReadingTheRequestsHeadersSendsTheCallUnpaced() {
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    AtomicBoolean thrown = new AtomicBoolean();
    RestClient client = RestClient.builder()
        .requestInterceptor((request, body, execution) ->
            execution.execute(new HttpRequestWrapper(request) {
              @Override
              public HttpHeaders getHeaders() {
                if (thrown.compareAndSet(false, true)) { // Headway reads them first.
                  throw new NoSuchMethodError("HttpHeaders.entrySet()");
                }
                return super.getHeaders();
              }
            }, body))
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .build();

    assertThat(client.get().uri(uri("/items")).retrieve().body(String.class)).isEqualTo("ok");
    assertThat(thrown).isTrue();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aLinkageErrorReadingTheResponsesHeadersGivesTheCallerTheResponseAsItCame() {
    server.enqueue(new MockResponse.Builder().code(200).body("ok")
        .addHeader("RateLimit-Policy", "\"a\";q=5;w=5").build());
    AtomicBoolean thrown = new AtomicBoolean();
    RestClient client = RestClient.builder()
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(pacer))
        .requestInterceptor((request, body, execution) ->
            new ThrowingHeadersOnce(execution.execute(request, body), thrown))
        .build();

    assertThat(client.get().uri(uri("/items")).retrieve().body(String.class)).isEqualTo("ok");
    assertThat(thrown).isTrue();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  private URI uri(String path) {
    return server.url(path).uri();
  }

  /** A response whose first {@code getHeaders} throws what a Spring lacking a method throws. */
  private static final class ThrowingHeadersOnce implements ClientHttpResponse {
    private final ClientHttpResponse response;
    private final AtomicBoolean thrown;

    ThrowingHeadersOnce(ClientHttpResponse response, AtomicBoolean thrown) {
      this.response = response;
      this.thrown = thrown;
    }

    @Override
    public HttpHeaders getHeaders() {
      if (thrown.compareAndSet(false, true)) { // Headway reads them first.
        throw new NoSuchMethodError("HttpHeaders.entrySet()");
      }
      return response.getHeaders();
    }

    @Override
    public HttpStatusCode getStatusCode() throws IOException {
      return response.getStatusCode();
    }

    @Override
    public String getStatusText() throws IOException {
      return response.getStatusText();
    }

    @Override
    public InputStream getBody() throws IOException {
      return response.getBody();
    }

    @Override
    public void close() {
      response.close();
    }
  }
}
