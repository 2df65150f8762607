package dev.headway.okhttp.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.util.function.Function;
import okhttp3.HttpUrl;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;

/** {@link TestServer} on {@code okhttp3.mockwebserver} (OkHttp 4.12). */
public final class MockWebServer4Factory implements TestServer.Factory {
  @Override
  public TestServer start(Function<Recorded, Reply> handler) throws IOException {
    MockWebServer server = new MockWebServer();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        Reply reply = handler.apply(new Recorded(request.getMethod(), request.getPath(),
            request.getHeaders(), request.getBody().readUtf8()));
        MockResponse response = new MockResponse().setResponseCode(reply.status());
        for (int i = 0; i < reply.headers().size(); i += 2) {
          response.addHeaderLenient(reply.headers().get(i), reply.headers().get(i + 1));
        }
        return response.setBody(reply.body());
      }
    });
    server.start(InetAddress.getByName("127.0.0.1"), 0);
    return new TestServer() {
      @Override
      public HttpUrl url(String path) {
        return server.url(path);
      }

      @Override
      public int requestCount() {
        return server.getRequestCount();
      }

      @Override
      public String flavour() {
        return "okhttp3.mockwebserver 4.12";
      }

      @Override
      public void close() throws IOException {
        server.shutdown();
      }
    };
  }
}
