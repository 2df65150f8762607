package dev.headway.testing;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.GZIPOutputStream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.QueueDispatcher;
import okio.Buffer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One adapter test's server and pacer, as a JUnit extension: a MockWebServer on an ephemeral port
 * of 127.0.0.1, started before each test and closed after it, and a {@link Pacer} on a
 * {@link VirtualClock} with the settings the adapters' tests pace with (no jitter,
 * {@linkplain PacingStrategy#useAllThenWait() use all, then wait}, {@code maxWait} 10 s, 3
 * attempts). Past its script the server answers 404 at once, never leaving a request waiting.
 *
 * <pre>{@code
 * @RegisterExtension final ServerFixture fixture = ServerFixture.autoAdvancing();
 * }</pre>
 *
 * <p>It also holds the server scripts that the tests of several adapters play, so that each test
 * names its scenario and keeps its own calls and assertions. Not thread-safe.
 */
public final class ServerFixture implements BeforeEachCallback, AfterEachCallback {
  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock;
  private final Pacer pacer;

  private ServerFixture(VirtualClock clock) {
    this.clock = clock;
    this.pacer = clock.pacer().jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(10)).maxAttempts(3).build();
  }

  /** Returns a fixture whose clock moves only when the test moves it. */
  public static ServerFixture create() {
    return new ServerFixture(VirtualClock.create());
  }

  /** Returns a fixture whose clock moves when a thread sleeps on it (for blocking clients). */
  public static ServerFixture autoAdvancing() {
    return new ServerFixture(VirtualClock.create().autoAdvance(true));
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    QueueDispatcher queue = new QueueDispatcher();
    queue.setFailFast(true);
    server.setDispatcher(queue);
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    server.close();
  }

  /** Returns the server; started during each test. */
  public MockWebServer server() {
    return server;
  }

  /** Returns the clock of the pacer. */
  public VirtualClock clock() {
    return clock;
  }

  /** Returns the pacer, on {@link #clock()}. */
  public Pacer pacer() {
    return pacer;
  }

  /** Returns the server's URI for {@code path}. */
  public URI uri(String path) {
    return server.url(path).uri();
  }

  /** Returns how many requests the server received. */
  public int requests() {
    return server.getRequestCount();
  }

  /**
   * Scripts a server that answers every request {@code 429} with {@code Retry-After: 1} and the
   * body {@code slow down}: 12 times, more than any call's attempts.
   */
  public void answer429EveryTime() {
    for (int i = 0; i < 12; i++) {
      server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1")
          .body("slow down").build());
    }
  }

  /**
   * Scripts a window of 2 requests a minute: the first answer, {@code first}, says one is left;
   * the second, {@code second}, says nothing.
   */
  public void leaveOneRequestInTheWindow() {
    server.enqueue(new MockResponse.Builder().code(200).body("first")
        .addHeader("RateLimit-Policy", "\"fixed\";q=2;w=60")
        .addHeader("RateLimit", "\"fixed\";r=1;t=60").build());
    server.enqueue(new MockResponse.Builder().code(200).body("second").build());
  }

  /**
   * Starts another server on 127.0.0.1 whose first answer, {@code token-1}, spends its window of
   * one request a minute; a second request would be answered {@code never}. The caller closes it.
   */
  public static MockWebServer startTokenServer() throws IOException {
    MockWebServer tokens = new MockWebServer();
    tokens.start(InetAddress.getByName("127.0.0.1"), 0);
    tokens.enqueue(new MockResponse.Builder().code(200).body("token-1")
        .addHeader("RateLimit-Policy", "\"fixed\";q=1;w=60")
        .addHeader("RateLimit", "\"fixed\";r=0;t=60").build());
    tokens.enqueue(new MockResponse.Builder().code(200).body("never").build());
    return tokens;
  }

  /**
   * Returns a response of status {@code code} whose body is {@code json} gzip-compressed, with
   * {@code Content-Type: application/json} and one {@code Content-Encoding} field per value of
   * {@code contentEncodings}, in order.
   */
  public static MockResponse gzippedJson(int code, String json, String... contentEncodings) {
    MockResponse.Builder response = new MockResponse.Builder().code(code)
        .addHeader("Content-Type", "application/json")
        .body(new Buffer().write(gzip(json)));
    for (String coding : contentEncodings) {
      response.addHeader("Content-Encoding", coding);
    }
    return response.build();
  }

  private static byte[] gzip(String text) {
    ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gzipped)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return gzipped.toByteArray();
  }
}
