package dev.headway.interop;

import com.sun.net.httpserver.HttpServer;
import dev.headway.Pacer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * Sends a few calls through an adapter to a plain local server (no limiter), with a pacer of
 * their own, before a cell starts: the client's and Headway's classes load and compile there, not
 * in the cell's first window. On a busy machine a cold client took most of a 4-second window for
 * its first call, which the measured goodput then counted as pacing.
 */
final class WarmUp {
  private static final int CALLS = 20;
  private static final byte[] BODY = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);

  private WarmUp() {}

  static void run(Adapter adapter) throws Exception {
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, BODY.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(BODY);
      }
    });
    server.start();
    try (Pacer pacer = Pacer.create(); Adapter.Caller caller = adapter.open(pacer)) {
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/warm-up");
      for (int i = 0; i < CALLS; i++) {
        try {
          caller.get(uri);
        } catch (IOException e) {
          // Warming up only: the cell checks outcomes.
        }
      }
    } finally {
      server.stop(0);
    }
  }
}
