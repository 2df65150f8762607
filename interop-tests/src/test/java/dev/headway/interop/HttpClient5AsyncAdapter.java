package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.httpclient5.RateLimitAsyncExecChainHandler;
import java.net.URI;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;

/**
 * Apache HttpClient 5's async client with {@link RateLimitAsyncExecChainHandler}, on a pool with
 * a connection per worker; each worker waits for its own future, as blocking code on top of the
 * async client does.
 */
final class HttpClient5AsyncAdapter implements Adapter {
  @Override
  public String name() {
    return "httpclient5-async";
  }

  @Override
  public Caller open(Pacer pacer) {
    CloseableHttpAsyncClient client = RateLimitAsyncExecChainHandler.create(pacer)
        .addTo(HttpAsyncClients.custom())
        .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
            .setMaxConnPerRoute(InteropRun.WORKERS)
            .setMaxConnTotal(InteropRun.WORKERS)
            .build())
        .build();
    client.start();
    return new Caller() {
      @Override
      public int get(URI uri) throws Exception {
        SimpleHttpResponse response = client.execute(SimpleRequestBuilder.get(uri).build(), null)
            .get();
        return response.getCode();
      }

      @Override
      public void close() throws Exception {
        client.close();
      }
    };
  }
}
