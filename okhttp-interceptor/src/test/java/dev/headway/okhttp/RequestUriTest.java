package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import okhttp3.HttpUrl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The URI a cost function or partition resolver sees is the one {@link HttpUrl#uri()} gives, also
 * for the characters OkHttp accepts and {@code java.net.URI} does not (the cheap path then falls
 * back to it).
 */
class RequestUriTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "https://api.example.com/v1/items?page=2&per_page=100",
      "http://127.0.0.1:8080/",
      "https://[::1]:8443/a/b",
      "https://user:pw@example.com/p#frag",
      "https://example.com/caf%C3%A9/na%20me?q=a+b&x=%7B%7D",
      "https://example.com/a{b}|c^d`e/[x]?q={a}|[b]^`#f{g}",
      "https://example.com/a\\b?q=\\",
      "https://example.com/é/ü?q=ß",
      "https://example.com/%zz/%?q=%",
      "https://EXAMPLE.com:443/A"})
  void theUriIsTheOneHttpUrlGives(String url) {
    HttpUrl httpUrl = HttpUrl.get(url);

    assertThat(OkHttpMessages.uri(httpUrl)).isEqualTo(httpUrl.uri());
    assertThat(OkHttpMessages.uri(httpUrl).toString()).isEqualTo(httpUrl.uri().toString());
  }
}
