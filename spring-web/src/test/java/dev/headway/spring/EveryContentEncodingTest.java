package dev.headway.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.ServerFixture;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
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

  @RegisterExtension
  final ServerFixture fixture = ServerFixture.autoAdvancing();

  /**
   * Before, with two fields: the read-ahead took the encoded length for the decoded body's and
   * stopped at its 79th byte, so the hint was cut short, the 60 s it said went unread and the
   * request was sent again; the caller got those 79 bytes.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"one field", "two fields"})
  void aGzipThrottledBodyAfterIdentityReachesTheCallerWhole(String fields) throws IOException {
    fixture.server().enqueue(fields.equals("one field")
        ? ServerFixture.gzippedJson(429, BODY, "identity, gzip")
        : ServerFixture.gzippedJson(429, BODY, "identity", "gzip"));
    RestClient client = RestClient.builder()
        .requestFactory(new SimpleClientHttpRequestFactory())
        .requestInterceptor(RateLimitClientHttpRequestInterceptor.create(fixture.pacer()))
        .requestInterceptor(decodingGzip())
        .build();

    String reply = client.get().uri(fixture.uri("/a")).exchange((request, answer) ->
        answer.getStatusCode().value() + " "
            + new String(answer.getBody().readAllBytes(), StandardCharsets.UTF_8));

    assertThat(reply).isEqualTo("429 " + BODY);
    assertThat(fixture.requests()).isEqualTo(1);
    assertThat(fixture.pacer().quota(fixture.uri("/")).heldFor()).isPresent(); // it said 60 s
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
