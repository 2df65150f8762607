package dev.headway.spring;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import dev.headway.internal.adapter.Attempt;
import dev.headway.internal.adapter.BodyHints;
import dev.headway.internal.adapter.PacedExchange;
import dev.headway.internal.adapter.RequestDescriptions;
import java.io.IOException;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;

/**
 * One request of a Spring interceptor chain as the core's {@link PacedExchange} sees it: an
 * attempt is {@code execution.execute}, the body (a byte array) can always be sent again, and a
 * body hint is read ahead by a {@link TappedResponse}. Not thread-safe: one per request.
 */
final class SpringExchange implements PacedExchange.Client<ClientHttpResponse> {
  private final HttpRequest request;
  private final byte[] body;
  private final ClientHttpRequestExecution execution;

  SpringExchange(HttpRequest request, byte[] body, ClientHttpRequestExecution execution) {
    this.request = request;
    this.body = body;
    this.execution = execution;
  }

  @Override
  public RequestInfo describe() {
    return RequestDescriptions.describe(request.getMethod().name(), request.getURI(),
        fields(request.getHeaders()), body.length > 0, body.length);
  }

  @Override
  public boolean replayable() {
    return true;
  }

  @Override
  public ClientHttpResponse send(Attempt attempt) throws IOException {
    return execution.execute(request, body);
  }

  @Override
  public ClientHttpResponse read(ClientHttpResponse response, Attempt attempt)
      throws IOException {
    HttpFields headers = fields(response.getHeaders());
    int status = response.getStatusCode().value();
    ClientHttpResponse readable = response;
    byte[] hint = null;
    if (attempt.readsBody(status, headers)) {
      // Read as much as a kept response may hold: a retry then finds the body in memory.
      TappedResponse tapped = TappedResponse.tap(response, BodyHints.KEEP_BYTES + 1);
      if (tapped != null) {
        readable = tapped;
        hint = tapped.tap().bytes(attempt.hintBytes());
      }
    }
    attempt.complete(status, headers, hint);
    return readable;
  }

  @Override
  public ClientHttpResponse sendUnpaced() throws IOException {
    return execution.execute(request, body);
  }

  @Override
  public ClientHttpResponse keep(ClientHttpResponse response) {
    return TappedResponse.keep(response);
  }

  /**
   * Drops a kept response. A body the read-ahead is still reading (it trickles or stalls) is left
   * to it, which closes it when its read returns: the retry is a new request of the factory and
   * does not wait for it.
   */
  @Override
  public void discard(ClientHttpResponse kept) {
    try {
      kept.close();
    } catch (RuntimeException e) {
      // The retry is going out: nothing to tell about a response nobody reads.
    }
  }

  /**
   * Copies Spring headers, every value in order, into one array. Walks them with
   * {@code forEach}, which Spring 6 (a {@code MultiValueMap}) and Spring 7 (no longer a
   * {@code Map}) both have with the same signature.
   */
  static HttpFields fields(HttpHeaders headers) {
    HttpFields.Builder builder = HttpFields.builder();
    headers.forEach((String name, List<String> values) -> {
      for (String value : values) {
        builder.add(name, value);
      }
    });
    return builder.build();
  }
}
