package dev.headway.interop;

import dev.headway.Pacer;
import dev.headway.okhttp.RateLimitInterceptor;
import java.net.URI;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * OkHttp's {@code execute} with {@link RateLimitInterceptor} as an application interceptor, on an
 * otherwise default client.
 */
final class OkHttpAdapter implements Adapter {
  @Override
  public String name() {
    return "okhttp";
  }

  @Override
  public Caller open(Pacer pacer) {
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(RateLimitInterceptor.create(pacer))
        .build();
    return new Caller() {
      @Override
      public int get(URI uri) throws Exception {
        try (Response response =
            client.newCall(new Request.Builder().url(uri.toString()).build()).execute()) {
          response.body().bytes();
          return response.code();
        }
      }

      @Override
      public void close() {
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
      }
    };
  }
}
