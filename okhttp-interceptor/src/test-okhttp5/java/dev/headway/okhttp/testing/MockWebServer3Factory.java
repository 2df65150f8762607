package dev.headway.okhttp.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.HttpUrl;

/** {@link TestServer} on {@code mockwebserver3} (OkHttp 5.x). */
public final class MockWebServer3Factory implements TestServer.Factory {
  @Override
  public TestServer start(Function<Recorded, Reply> handler) throws IOException {
    MockWebServer server = new MockWebServer();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        okio.ByteString body = request.getBody();
        Reply reply = handler.apply(new Recorded(request.getMethod(), request.getTarget(),
            request.getHeaders(), body == null ? "" : body.utf8()));
        MockResponse.Builder response = new MockResponse.Builder().code(reply.status());
        for (int i = 0; i < reply.headers().size(); i += 2) {
          response.addHeaderLenient(reply.headers().get(i), reply.headers().get(i + 1));
        }
        return response.body(reply.body()).build();
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
        return "mockwebserver3";
      }

      @Override
      public void close() {
        server.close();
      }
    };
  }
}
