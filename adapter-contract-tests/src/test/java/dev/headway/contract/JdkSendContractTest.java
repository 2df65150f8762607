package dev.headway.contract;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The contract on {@code HttpClient.send} through {@link RateLimitedHttpClient}. As the JDK's
 * own {@code send}, an interrupted wait throws {@link InterruptedException} with the thread's
 * interrupt flag cleared.
 */
class JdkSendContractTest extends AdapterContract {
  @Override
  Caller caller(Pacer pacer) {
    HttpClient client = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
    return new Caller() {
      @Override
      public Reply send(String method, URI uri, @Nullable String body, boolean oneShot)
          throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(request(method, uri, body, oneShot),
            BodyHandlers.ofString());
        return new Reply(response.statusCode(), response.body());
      }

      @Override
      public Class<? extends Exception> interrupted() {
        return InterruptedException.class;
      }

      @Override
      public boolean interruptFlagKept() {
        return false;
      }
    };
  }

  /** Returns the request; a one-shot body comes from an input stream, as the JDK offers it. */
  static HttpRequest request(String method, URI uri, @Nullable String body, boolean oneShot) {
    BodyPublisher publisher = body == null ? BodyPublishers.noBody()
        : oneShot ? BodyPublishers.ofInputStream(
            () -> new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)))
        : BodyPublishers.ofString(body);
    return HttpRequest.newBuilder(uri).method(method, publisher).build();
  }
}
