package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** {@code java.net.http}'s blocking {@code send} through {@link RateLimitedHttpClient}. */
final class JdkSendAdapter implements Adapter {
  @Override
  public String name() {
    return "jdk-send";
  }

  @Override
  public Caller open(Pacer pacer) {
    HttpClient plain = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
    HttpClient client = RateLimitedHttpClient.wrap(plain, pacer);
    return uri -> client.send(HttpRequest.newBuilder(uri).build(),
        HttpResponse.BodyHandlers.ofByteArray()).statusCode();
  }
}
