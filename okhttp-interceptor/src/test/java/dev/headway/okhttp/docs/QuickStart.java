package dev.headway.okhttp.docs;

// docs/okhttp.md:quick-start:begin
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.IOException;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

public class QuickStart {
  // One client, one interceptor (with its own Pacer) for the whole application.
  static final OkHttpClient CLIENT = new OkHttpClient.Builder()
      .addInterceptor(RateLimitInterceptor.create())
      .build();

  static String fetch(String url) throws IOException {
    Request request = new Request.Builder().url(url).build();
    try (Response response = CLIENT.newCall(request).execute()) {
      return response.code() + " " + response.body().string();
    }
  }
}
// docs/okhttp.md:quick-start:end
