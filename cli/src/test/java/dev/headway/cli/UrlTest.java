package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.headway.QuotaLimit;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code headway explain --url}: one GET with the JDK HttpClient against a local server. */
class UrlTest {
  private final MockWebServer server = new MockWebServer();

  /** Reports {@code Test-Remaining} as a limit and records the bodies it was given. */
  static final class EchoDialect implements Dialect {
    final List<Integer> statuses = new ArrayList<>();

    @Override
    public String name() {
      return "echo";
    }

    @Override
    public void read(DialectContext context, SignalSink sink) {
      statuses.add(context.status());
      context.headers().firstValue("Test-Remaining").ifPresent(r -> sink.limit(new QuotaLimit(
          "default", Long.parseLong(r), Optional.of(Duration.ofSeconds(30)), Optional.empty(),
          name())));
    }
  }

  @BeforeEach
  void start() throws IOException {
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String url(String path) {
    return server.url(path).toString();
  }

  private RecordedRequest taken() throws InterruptedException {
    RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(request).as("a request reached the server").isNotNull();
    return request;
  }

  @Test
  void explainsTheResponseOfOneGet() throws Exception {
    server.enqueue(new MockResponse.Builder().code(429)
        .addHeader("Retry-After", "20")
        .addHeader("RateLimit-Policy", "\"default\";q=100;w=60")
        .addHeader("RateLimit", "\"default\";r=0;t=20")
        .body("slow down")
        .build());

    Cli.Result result = Cli.run("", "explain", "--url", url("/v1/things?x=1"));

    JsonNode json = result.ok();
    assertThat(json.get("status").asInt()).isEqualTo(429);
    assertThat(json.get("retryAfterSeconds").asLong()).isEqualTo(20);
    assertThat(json.get("limits").get(0).get("remaining").asLong()).isZero();
    assertThat(json.get("effective").get("limit").asLong()).isEqualTo(100);
    RecordedRequest request = taken();
    assertThat(request.getMethod()).isEqualTo("GET");
    assertThat(request.getTarget()).isEqualTo("/v1/things?x=1");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void sendsTheGivenHeaders() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).addHeader("Test-Remaining", "7").build());
    EchoDialect echo = new EchoDialect();

    Cli.Result result = Cli.run(new byte[0], Cli.clock(), Cli.withDialects(echo), "explain",
        "--url", url("/"), "-H", "Authorization: Bearer abc", "--header=X-Api-Key:k1",
        "-HAccept: application/json");

    assertThat(result.ok().get("limits").get(0).get("remaining").asLong()).isEqualTo(7);
    RecordedRequest request = taken();
    assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer abc");
    assertThat(request.getHeaders().get("X-Api-Key")).isEqualTo("k1");
    assertThat(request.getHeaders().get("Accept")).isEqualTo("application/json");
  }

  @Test
  void doesNotFollowRedirectsUnlessAskedTo() throws Exception {
    server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", url("/next"))
        .addHeader("Test-Remaining", "1").build());

    Cli.Result plain = Cli.run(new byte[0], Cli.clock(), Cli.withDialects(new EchoDialect()),
        "explain", "--url", url("/start"));

    assertThat(plain.ok().get("status").asInt()).isEqualTo(302);
    assertThat(plain.json().get("limits").get(0).get("remaining").asLong()).isEqualTo(1);
    assertThat(server.getRequestCount()).isEqualTo(1);

    server.enqueue(new MockResponse.Builder().code(302).addHeader("Location", url("/next"))
        .build());
    server.enqueue(new MockResponse.Builder().code(200).addHeader("Test-Remaining", "2").build());
    Cli.Result followed = Cli.run(new byte[0], Cli.clock(), Cli.withDialects(new EchoDialect()),
        "explain", "--url", url("/start"), "-L");

    assertThat(followed.ok().get("status").asInt()).isEqualTo(200);
    assertThat(followed.json().get("limits").get(0).get("remaining").asLong()).isEqualTo(2);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void passesAJsonBodyToTheParser() throws Exception {
    server.enqueue(new MockResponse.Builder().code(429)
        .addHeader("Content-Type", "application/json")
        .body("{\"message\": \"You are being rate limited.\", \"retry_after\": 1.5,"
            + " \"global\": false}")
        .build());

    Cli.Result result = Cli.run("", "explain", "--url", url("/"));

    assertThat(result.ok().get("retryAfterSeconds").decimalValue()).isEqualByComparingTo("1.5");
  }

  @Test
  void ignoresStdinWithUrl() throws Exception {
    server.enqueue(new MockResponse.Builder().code(204).build());

    Cli.Result result = Cli.run("HTTP/1.1 429 Too Many Requests\n", "explain", "--url",
        url("/"));

    assertThat(result.ok().get("status").asInt()).isEqualTo(204);
  }

  @Test
  void textFormatWorksWithUrl() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).addHeader("Test-Remaining", "3").build());

    Cli.Result result = Cli.run(new byte[0], Cli.clock(), Cli.withDialects(new EchoDialect()),
        "explain", "--url", url("/"), "--format", "text");

    assertThat(result.exitCode()).isZero();
    assertThat(result.stdout()).startsWith("status       200\ndialects     echo\n")
        .contains("effective    3 remaining, reset in 30 s");
  }

  @Test
  void aRefusedConnectionExitsTwoWithOneLine() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }

    Cli.Result result = Cli.run("", "explain", "--url", "http://127.0.0.1:" + port + "/",
        "--timeout", "5");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stdout()).isEmpty();
    assertThat(result.stderr()).startsWith("headway: GET http://127.0.0.1:" + port + "/ failed: ")
        .endsWith(System.lineSeparator());
    assertThat(result.stderr().strip().lines()).hasSize(1);
    // It says what happened, not the JDK's message-less ClosedChannelException.
    assertThat(result.stderr()).contains("could not connect to 127.0.0.1:" + port
        + " (connection refused, or the host is unreachable)");
  }

  @Test
  void aHostWhoseNameDoesNotResolveIsCalledUnknown() throws Exception {
    // .invalid never resolves (RFC 6761).
    Cli.Result result = Cli.run("", "explain", "--url", "http://no-such-host.invalid/",
        "--timeout", "5");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stderr()).isEqualTo("headway: GET http://no-such-host.invalid/ failed:"
        + " unknown host no-such-host.invalid (its name does not resolve)"
        + System.lineSeparator());
  }

  @Test
  void aServerThatNeverAnswersTimesOut() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).headersDelay(10, TimeUnit.SECONDS)
        .build());

    Cli.Result result = Cli.run("", "explain", "--url", url("/"), "--timeout", "0.2");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stderr()).isEqualTo("headway: GET " + url("/") + " timed out after 0.2 s"
        + System.lineSeparator());
  }

  /**
   * A server on 127.0.0.1 that answers one request with {@code head} and then sends nothing
   * more, holding the connection open until {@link #close()}.
   */
  static final class StallingServer implements AutoCloseable {
    final ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    final CountDownLatch release = new CountDownLatch(1);
    final Thread thread;

    StallingServer(byte[] head) throws IOException {
      thread = new Thread(() -> {
        try (Socket client = socket.accept()) {
          InputStream in = client.getInputStream();
          int matched = 0;
          while (matched < 4) { // read the request head, up to CRLF CRLF
            int b = in.read();
            if (b < 0) {
              return;
            }
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
          }
          OutputStream out = client.getOutputStream();
          out.write(head);
          out.flush();
          release.await();
        } catch (IOException | InterruptedException e) {
          // the test is over
        }
      }, "stalling-server");
      thread.setDaemon(true);
      thread.start();
    }

    String url() {
      return "http://127.0.0.1:" + socket.getLocalPort() + "/slow";
    }

    @Override
    public void close() throws IOException {
      release.countDown();
      socket.close();
    }
  }

  // Regression: --timeout bounded only the response head; a body that stalled hung the command
  // (a blocking read that not even an interrupt ended). The @Timeout is a hang guard only: it
  // runs the test in another thread so that a regression fails instead of hanging the build.
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aServerThatStallsInTheBodyTimesOut() throws Exception {
    byte[] head = ("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
        + "Content-Length: 1000\r\nRetry-After: 5\r\n\r\n{\"retry_after\": ")
        .getBytes(StandardCharsets.US_ASCII);
    try (StallingServer stalling = new StallingServer(head)) {
      Cli.Result result = Cli.run("", "explain", "--url", stalling.url(), "--timeout", "0.5");

      assertThat(result.exitCode()).isEqualTo(2);
      assertThat(result.stdout()).isEmpty();
      assertThat(result.stderr()).isEqualTo("headway: GET " + stalling.url()
          + " timed out after 0.5 s" + System.lineSeparator());
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBodyPastTheParserLimitIsNotWaitedFor() throws Exception {
    String body = "{\"retry_after\": 7, \"pad\": \"" + "x".repeat(20_000);
    byte[] head = ("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
        + "Content-Length: 1000000\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
    try (StallingServer stalling = new StallingServer(head)) {
      // The first 16 KiB arrive; the rest never does. The command needs no more than that.
      Cli.Result result = Cli.run("", "explain", "--url", stalling.url(), "--timeout", "30");

      assertThat(result.exitCode()).as(result.stderr()).isZero();
      assertThat(result.ok().get("status").asInt()).isEqualTo(429);
    }
  }

  @Test
  void aRestrictedHeaderIsABadOption() {
    Cli.Result result = Cli.run("", "explain", "--url", url("/"), "-H", "Host: other");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stderr()).startsWith("headway: -H 'Host' cannot be sent: ");
    assertThat(server.getRequestCount()).isZero();
  }
}
