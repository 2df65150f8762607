package dev.headway.okhttp.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Function;
import okhttp3.HttpUrl;

/**
 * A loopback HTTP server on an ephemeral port, behind which each OkHttp line plugs its own
 * MockWebServer: {@code mockwebserver3} for OkHttp 5.x (src/test-okhttp5 of okhttp-interceptor),
 * {@code okhttp3.mockwebserver} for 4.12 (the okhttp-interceptor-okhttp4-tests module). The
 * shared tests use only this interface, so the same sources run against both lines.
 */
public interface TestServer extends AutoCloseable {
  /** Starts a server that answers every request with {@code handler}'s reply. */
  static TestServer start(Function<Recorded, Reply> handler) throws IOException {
    List<Factory> factories = new ArrayList<>();
    ServiceLoader.load(Factory.class).forEach(factories::add);
    if (factories.size() != 1) {
      throw new IllegalStateException("expected one TestServer.Factory but found " + factories);
    }
    return factories.get(0).start(handler);
  }

  /** Returns the URL of {@code path} on this server. */
  HttpUrl url(String path);

  /** Returns the number of requests received so far. */
  int requestCount();

  /** Returns the MockWebServer flavour, for messages. */
  String flavour();

  @Override
  void close() throws IOException;

  /** Starts servers of one MockWebServer flavour; found with {@link ServiceLoader}. */
  interface Factory {
    /** Starts a server on 127.0.0.1 and an ephemeral port. */
    TestServer start(Function<Recorded, Reply> handler) throws IOException;
  }
}
