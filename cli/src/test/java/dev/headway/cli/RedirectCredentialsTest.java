package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code headway explain --url URL -H 'Authorization: ...' -L} against a server that redirects
 * to another origin. The JDK client forwards user headers across origins; before, the second
 * origin received the credential (a man in the middle on plain http can inject the redirect).
 * Now {@code Authorization}, {@code Proxy-Authorization} and {@code Cookie} (as curl does) and
 * any header named like a key, token or secret are sent only to the origin they were given for.
 */
@Timeout(30)
class RedirectCredentialsTest {
  private final MockWebServer first = new MockWebServer();
  private final MockWebServer other = new MockWebServer();

  @BeforeEach
  void start() throws IOException {
    first.start();
    other.start();
  }

  @AfterEach
  void stop() {
    first.close();
    other.close();
  }

  private static RecordedRequest taken(MockWebServer server) throws InterruptedException {
    RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(request).as("a request reached the server").isNotNull();
    return request;
  }

  @Test
  void aRedirectToAnotherOriginDoesNotCarryTheCredentials() throws Exception {
    first.enqueue(new MockResponse.Builder().code(302)
        .addHeader("Location", other.url("/landing").toString()).build());
    other.enqueue(new MockResponse.Builder().code(200).addHeader("Test-Remaining", "4").build());

    Cli.Result result = Cli.run(new byte[0], Cli.clock(),
        Cli.withDialects(new UrlTest.EchoDialect()), "explain", "--url",
        first.url("/start").toString(), "-L", "-H", "Authorization: Bearer s3cret",
        "-H", "Proxy-Authorization: Basic cHJveHk6cHc=", "-H", "Cookie: session=abc",
        "-H", "Accept: application/json");

    assertThat(result.exitCode()).as("stderr: %s", result.stderr()).isZero();
    assertThat(result.json().get("status").asInt()).isEqualTo(200);
    assertThat(result.json().get("limits").get(0).get("remaining").asLong()).isEqualTo(4);
    RecordedRequest atFirst = taken(first);
    assertThat(atFirst.getHeaders().get("Authorization")).isEqualTo("Bearer s3cret");
    assertThat(atFirst.getHeaders().get("Cookie")).isEqualTo("session=abc");
    RecordedRequest atOther = taken(other);
    assertThat(atOther.getTarget()).isEqualTo("/landing");
    assertThat(atOther.getHeaders().get("Authorization")).isNull();
    assertThat(atOther.getHeaders().get("Proxy-Authorization")).isNull();
    assertThat(atOther.getHeaders().get("Cookie")).isNull();
    assertThat(atOther.getHeaders().get("Accept")).isEqualTo("application/json");
    assertThat(result.json().get("warnings").toString())
        .contains("Authorization").contains("not sent").doesNotContain("s3cret");
  }

  @Test
  void aRedirectToAnotherOriginDoesNotCarryAnApiKeyOrTokenHeaderEither() throws Exception {
    // Failed before: only Authorization, Proxy-Authorization and Cookie were left out, so an
    // API key in X-Api-Key (or a token in X-Auth-Token) reached the origin the redirect named.
    first.enqueue(new MockResponse.Builder().code(302)
        .addHeader("Location", other.url("/landing").toString()).build());
    other.enqueue(new MockResponse.Builder().code(200).build());

    Cli.Result result = Cli.run("", "explain", "--url", first.url("/start").toString(), "-L",
        "-H", "X-Api-Key: s3cret-key", "-H", "X-Auth-Token: s3cret-token",
        "-H", "Api-Secret: s3cret-3", "-H", "Accept: application/json");

    assertThat(result.ok().get("status").asInt()).isEqualTo(200);
    RecordedRequest atFirst = taken(first);
    assertThat(atFirst.getHeaders().get("X-Api-Key")).isEqualTo("s3cret-key");
    RecordedRequest atOther = taken(other);
    assertThat(atOther.getHeaders().get("X-Api-Key")).isNull();
    assertThat(atOther.getHeaders().get("X-Auth-Token")).isNull();
    assertThat(atOther.getHeaders().get("Api-Secret")).isNull();
    assertThat(atOther.getHeaders().get("Accept")).isEqualTo("application/json");
    assertThat(result.json().get("warnings").toString())
        .contains("X-Api-Key").contains("X-Auth-Token").doesNotContain("s3cret");
  }

  @Test
  void aRedirectWithinTheOriginKeepsTheCredentials() throws Exception {
    first.enqueue(new MockResponse.Builder().code(307).addHeader("Location", "/next").build());
    first.enqueue(new MockResponse.Builder().code(200).build());

    Cli.Result result = Cli.run("", "explain", "--url", first.url("/start").toString(), "-L",
        "-H", "Authorization: Bearer s3cret");

    assertThat(result.ok().get("status").asInt()).isEqualTo(200);
    taken(first);
    RecordedRequest next = taken(first);
    assertThat(next.getTarget()).isEqualTo("/next");
    assertThat(next.getHeaders().get("Authorization")).isEqualTo("Bearer s3cret");
  }

  @Test
  void onceDroppedTheCredentialsAreNotSentBackToTheFirstOrigin() throws Exception {
    first.enqueue(new MockResponse.Builder().code(302)
        .addHeader("Location", other.url("/bounce").toString()).build());
    other.enqueue(new MockResponse.Builder().code(302)
        .addHeader("Location", first.url("/back").toString()).build());
    first.enqueue(new MockResponse.Builder().code(200).build());

    Cli.Result result = Cli.run("", "explain", "--url", first.url("/start").toString(), "-L",
        "-H", "Authorization: Bearer s3cret");

    assertThat(result.ok().get("status").asInt()).isEqualTo(200);
    taken(first);
    assertThat(taken(other).getHeaders().get("Authorization")).isNull();
    assertThat(taken(first).getHeaders().get("Authorization")).isNull();
  }

  @Test
  void aRedirectLoopEndsWithOneLine() throws Exception {
    for (int i = 0; i < 30; i++) {
      first.enqueue(new MockResponse.Builder().code(302).addHeader("Location", "/again").build());
    }

    Cli.Result result = Cli.run("", "explain", "--url", first.url("/start").toString(), "-L");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stderr()).contains("redirects").endsWith(System.lineSeparator());
    assertThat(result.stderr().strip().lines()).hasSize(1);
  }
}
