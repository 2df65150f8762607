package consumer.boot;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A rate-limited API on 127.0.0.1 that enforces its quota: {@code limit} requests per fixed
 * window of {@code windowMillis}, advertised on every response as IETF RateLimit fields (the
 * time to reset rounded up to whole seconds); a request past the quota gets 429 with
 * Retry-After.
 */
final class QuotaApi implements AutoCloseable {
  private final HttpServer server;
  private final int limit;
  private final long windowMillis;
  private final long startMillis = System.currentTimeMillis();
  final AtomicInteger requests = new AtomicInteger();
  final AtomicInteger throttled = new AtomicInteger();
  private long window = -1;
  private int used;

  QuotaApi(int limit, long windowMillis) throws IOException {
    this.limit = limit;
    this.windowMillis = windowMillis;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      requests.incrementAndGet();
      int remaining;
      long resetMillis;
      synchronized (this) {
        long now = System.currentTimeMillis() - startMillis;
        long current = now / windowMillis;
        if (current != window) {
          window = current;
          used = 0;
        }
        resetMillis = (current + 1) * windowMillis - now;
        remaining = used < limit ? limit - ++used : -1;
      }
      long resetSeconds = Math.max(1, (resetMillis + 999) / 1000);
      byte[] body;
      exchange.getResponseHeaders().add("RateLimit-Policy",
          "\"window\";q=" + limit + ";w=" + Math.max(1, windowMillis / 1000));
      if (remaining < 0) {
        throttled.incrementAndGet();
        exchange.getResponseHeaders().add("RateLimit", "\"window\";r=0;t=" + resetSeconds);
        exchange.getResponseHeaders().add("Retry-After", Long.toString(resetSeconds));
        body = "slow down".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(429, body.length);
      } else {
        exchange.getResponseHeaders().add("RateLimit",
            "\"window\";r=" + remaining + ";t=" + resetSeconds);
        exchange.getResponseHeaders().add("Content-Type", "text/plain");
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
    return URI.create(origin() + path);
  }

  String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  static void check(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError("consumer check failed: " + what);
    }
    System.out.println("ok: " + what);
  }

  static void check0(boolean condition) {
    if (!condition) {
      throw new AssertionError("consumer check failed: a call did not return ok");
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
