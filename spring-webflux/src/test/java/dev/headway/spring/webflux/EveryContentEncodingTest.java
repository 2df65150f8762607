package dev.headway.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.testing.ServerFixture;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * A throttled body whose {@code Content-Encoding} lists a coding after {@code identity}, in one
 * field or two, under a filter that decodes it but keeps its {@code Content-Length} (the encoded
 * length): the declared length does not count, the body's hint is read whole, and the caller
 * gets the whole decoded body. Time is virtual.
 */
@Timeout(30)
class EveryContentEncodingTest {
  private static final String BODY =
      "{\"retry_after\": 60, \"detail\": \"" + "x".repeat(5_000) + "\"}";

  @RegisterExtension
  final ServerFixture fixture = ServerFixture.create();

  /**
   * Before, with two fields: the read-ahead took the encoded length for the decoded body's and
   * stopped at its 79th byte, so the hint was cut short, the 60 s it said went unread and the
   * request was sent again.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"one field", "two fields"})
  void aGzipThrottledBodyAfterIdentityReachesTheCallerWhole(String fields) throws Exception {
    fixture.server().enqueue(fields.equals("one field")
        ? ServerFixture.gzippedJson(429, BODY, "identity, gzip")
        : ServerFixture.gzippedJson(429, BODY, "identity", "gzip"));
    WebClient client = WebClient.builder()
        .filter(RateLimitExchangeFilterFunction.create(fixture.pacer()))
        .filter(decodingGzip())
        .build();

    String reply = fixture.clock().await(client.get().uri(fixture.uri("/a"))
        .exchangeToMono(answer -> answer.bodyToMono(String.class).defaultIfEmpty("")
            .map(body -> answer.statusCode().value() + " " + body))
        .toFuture());

    assertThat(reply).isEqualTo("429 " + BODY);
    assertThat(fixture.requests()).isEqualTo(1);
    assertThat(fixture.pacer().quota(fixture.uri("/")).heldFor()).isPresent(); // it said 60 s
  }

  private static byte[] gunzip(byte[] encoded) {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(encoded))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code bytes} as buffers of 64 bytes, as a decoder hands a body on. */
  private static List<DataBuffer> chunks(byte[] bytes) {
    List<DataBuffer> chunks = new ArrayList<>();
    for (int at = 0; at < bytes.length; at += 64) {
      chunks.add(DefaultDataBufferFactory.sharedInstance
          .wrap(Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + 64))));
    }
    return chunks;
  }

  /**
   * A filter of the application's after Headway's that decodes a body any of whose codings is
   * gzip, handing it on in chunks, and leaves the fields as they came.
   */
  private static ExchangeFilterFunction decodingGzip() {
    return (request, next) -> next.exchange(request).map(response -> {
      if (!response.headers().asHttpHeaders().getValuesAsList(HttpHeaders.CONTENT_ENCODING)
          .contains("gzip")) {
        return response;
      }
      return response.mutate().body(body -> DataBufferUtils.join(body).flatMapMany(joined -> {
        byte[] encoded = new byte[joined.readableByteCount()];
        joined.read(encoded);
        DataBufferUtils.release(joined);
        return Flux.fromIterable(chunks(gunzip(encoded)));
      })).build();
    });
  }
}
