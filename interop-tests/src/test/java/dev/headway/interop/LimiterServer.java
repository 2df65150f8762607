package dev.headway.interop;

import java.io.IOException;
import java.net.URI;
import java.util.List;

/**
 * A real rate limiter running on 127.0.0.1, with the server's own log of every request that
 * reached it.
 */
interface LimiterServer extends AutoCloseable {
  /** The limited resource: a {@code GET} of it goes through the limiter. */
  URI workUri();

  /** The limiter's name and version as installed, e.g. {@code express-rate-limit 8.7.4}. */
  String version();

  /** Forgets the log: request times count from now. */
  void reset() throws IOException, InterruptedException;

  /** Every request that reached the server since {@link #reset()}, in arrival order. */
  List<Hit> log() throws IOException, InterruptedException;

  @Override
  void close();

  /** One request as the server saw it: when it arrived and the status it was answered with. */
  record Hit(long atMillis, int status) {}

  /** Starts {@code limiter} allowing {@code limit} per {@code windowMillis}. */
  static LimiterServer start(Limiter limiter, int limit, long windowMillis, String cell)
      throws IOException, InterruptedException {
    return switch (limiter.runtime) {
      case NODE -> ScriptServer.start(List.of(Runtimes.nodeServers().toString(),
          Runtimes.NODE_DIR.resolve("servers.js").toString(), limiter.id,
          Integer.toString(limit), Long.toString(windowMillis)), cell);
      case PYTHON -> ScriptServer.start(List.of(Runtimes.python().toString(),
          Runtimes.flaskServer().toString(), limiter.id, Integer.toString(limit),
          Long.toString(windowMillis)), cell);
      case NGINX -> NginxServer.start(limit, windowMillis, cell);
      case JAVA -> GatewayServer.start(limit, windowMillis, cell);
    };
  }
}
