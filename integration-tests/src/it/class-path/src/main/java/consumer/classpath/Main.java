package consumer.classpath;

import dev.headway.Pacer;
import dev.headway.okhttp.RateLimitInterceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    try (LocalApi api = new LocalApi(true)) {
      Pacer pacer = Pacer.create();
      OkHttpClient client = new OkHttpClient.Builder()
          .addInterceptor(RateLimitInterceptor.create(pacer))
          .build();
      Request request = new Request.Builder().url(api.uri("/items").toString()).build();
      String body;
      try (Response response = client.newCall(request).execute()) {
        body = response.body().string();
      }
      System.out.println(pacer.quota(api.uri("/")));
      LocalApi.check(body.equals("ok"), "the 429 was retried and the retry succeeded");
      LocalApi.check(api.requests.get() == 2, "two requests reached the server");
      LocalApi.check(okhttp3.OkHttp.VERSION.startsWith("5."), "OkHttp 5 (okhttp-jvm) is in use: "
          + okhttp3.OkHttp.VERSION);
      LocalApi.check(!RateLimitInterceptor.class.getModule().isNamed(), "on the class path");
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
    }
  }
}
