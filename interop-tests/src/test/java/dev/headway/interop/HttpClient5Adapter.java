package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.httpclient5.RateLimitExecChainHandler;
import java.net.URI;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * Apache HttpClient 5's classic client with {@link RateLimitExecChainHandler}, on a pool with a
 * connection per worker (HttpClient's default of 5 per route would queue the eight workers in
 * the pool rather than in the pacer).
 */
final class HttpClient5Adapter implements Adapter {
  @Override
  public String name() {
    return "httpclient5";
  }

  @Override
  public Caller open(Pacer pacer) {
    CloseableHttpClient client = RateLimitExecChainHandler.create(pacer)
        .addTo(HttpClients.custom())
        .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnPerRoute(InteropRun.WORKERS)
            .setMaxConnTotal(InteropRun.WORKERS)
            .build())
        .build();
    return new Caller() {
      @Override
      public int get(URI uri) throws Exception {
        return client.execute(new HttpGet(uri), response -> {
          EntityUtils.consume(response.getEntity());
          return response.getCode();
        });
      }

      @Override
      public void close() throws Exception {
        client.close();
      }
    };
  }
}
