package dev.headway.contract;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.headway.Pacer;
import dev.headway.jdk.RateLimitedHttpClient;
import dev.headway.okhttp.RateLimitInterceptor;
import dev.headway.spring.RateLimitClientHttpRequestInterceptor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The adapters' entry points name a null argument as the core does ("pacer must not be null"),
 * never with the bare name.
 */
class AdapterNullArgumentsTest {
  private static final HttpRequest GET = HttpRequest.newBuilder(URI.create("http://localhost/"))
      .build();

  static Stream<Arguments> calls() {
    Pacer pacer = Pacer.create();
    RateLimitedHttpClient jdk = RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), pacer);
    return Stream.of(
        call("RateLimitInterceptor.create(null)", "pacer",
            () -> RateLimitInterceptor.create(null)),
        call("RateLimitInterceptor.builder(null)", "pacer",
            () -> RateLimitInterceptor.builder(null)),
        call("RateLimitClientHttpRequestInterceptor.create(null)", "pacer",
            () -> RateLimitClientHttpRequestInterceptor.create(null)),
        call("RateLimitClientHttpRequestInterceptor.builder(null)", "pacer",
            () -> RateLimitClientHttpRequestInterceptor.builder(null)),
        call("RateLimitedHttpClient.wrap(null)", "delegate",
            () -> RateLimitedHttpClient.wrap(null)),
        call("RateLimitedHttpClient.wrap(client, null)", "pacer",
            () -> RateLimitedHttpClient.wrap(HttpClient.newHttpClient(), null)),
        call("RateLimitedHttpClient.replayable(null)", "publisher",
            () -> RateLimitedHttpClient.replayable(null)),
        call("send(null, handler)", "request", () -> jdk.send(null, BodyHandlers.ofString())),
        call("send(request, null)", "responseBodyHandler", () -> jdk.send(GET, null)),
        call("sendAsync(null, handler)", "request",
            () -> jdk.sendAsync(null, BodyHandlers.ofString())),
        call("sendAsync(request, null)", "responseBodyHandler", () -> jdk.sendAsync(GET, null)));
  }

  private static Arguments call(String name, String argument, ThrowingCallable call) {
    return Arguments.of(name, argument, call);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("calls")
  void aNullArgumentIsNamed(String name, String argument, ThrowingCallable call) {
    assertThatThrownBy(call).as(name).isInstanceOf(NullPointerException.class)
        .hasMessage(argument + " must not be null");
  }
}
