package consumer.quickstart;

import com.sun.net.httpserver.HttpServer;
import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.okhttp.RateLimitInterceptor;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The README's OkHttp quick start against a local API on 127.0.0.1 that advertises its quota;
 * fails (non-zero exit) unless the call went through Headway and the quota is known afterwards.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      exchange.getResponseHeaders().add("RateLimit-Policy", "\"hourly\";q=5000;w=3600");
      exchange.getResponseHeaders().add("RateLimit", "\"hourly\";r=4999;t=1800");
      byte[] body = "Keep it logically awesome.".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    URI api = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    try (Pacer pacer = Pacer.create()) {
      OkHttpClient client = new OkHttpClient.Builder()
          .addInterceptor(RateLimitInterceptor.create(pacer))
          .build();
      Request request = new Request.Builder().url(api.resolve("/zen").toString()).build();
      try (Response response = client.newCall(request).execute()) {
        System.out.println(response.code() + " " + response.body().string());
      }
      PolicySnapshot hourly = pacer.quota(api).policy("hourly").orElseThrow(
          () -> new AssertionError("the pacer read no quota from the response"));
      System.out.println(hourly);
      if (hourly.remaining().orElse(-1) != 4999) {
        throw new AssertionError("expected 4999 left, got " + hourly);
      }
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
    } finally {
      server.stop(0);
    }
  }
}
