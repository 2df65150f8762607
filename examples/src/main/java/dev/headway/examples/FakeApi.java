package dev.headway.examples;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.util.Objects;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;

/**
 * A local stand-in for a vendor's API, on 127.0.0.1, so that the examples' {@code main} methods
 * run offline. Each request is answered by a function of the request.
 *
 * <p>Thread-safe.
 */
public final class FakeApi implements AutoCloseable {
  private final MockWebServer server = new MockWebServer();

  private FakeApi(Function<RecordedRequest, MockResponse> handler) throws IOException {
    Objects.requireNonNull(handler, "handler must not be null");
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return handler.apply(request);
      }
    });
    server.start(InetAddress.getLoopbackAddress(), 0);
  }

  /** Starts a fake API on an ephemeral port that answers with {@code handler}. */
  public static FakeApi start(Function<RecordedRequest, MockResponse> handler)
      throws IOException {
    return new FakeApi(handler);
  }

  /** Returns the absolute URI of {@code path} on this server, e.g. {@code /users/octocat}. */
  public URI uri(String path) {
    return server.url(path).uri();
  }

  @Override
  public void close() {
    server.close();
  }
}
