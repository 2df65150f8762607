package consumer.modular;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local API on 127.0.0.1: when {@code throttleFirst}, the first request is answered 429 with
 * Retry-After: 1; every other one 200 "ok" with a quota of 10 per minute, 7 left.
 */
final class LocalApi implements AutoCloseable {
  private final HttpServer server;
  final AtomicInteger requests = new AtomicInteger();

  LocalApi(boolean throttleFirst) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      int n = requests.incrementAndGet();
      byte[] body;
      if (throttleFirst && n == 1) {
        exchange.getResponseHeaders().add("Retry-After", "1");
        body = "slow down".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(429, body.length);
      } else {
        exchange.getResponseHeaders().add("RateLimit-Policy", "\"fixed\";q=10;w=60");
        exchange.getResponseHeaders().add("RateLimit", "\"fixed\";r=7;t=60");
        body = "ok".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
      }
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  static void check(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError("consumer check failed: " + what);
    }
    System.out.println("ok: " + what);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
