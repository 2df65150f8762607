package dev.headway.interop;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * nginx with {@code limit_req} (rate {@code limit} per window, {@code burst=limit nodelay},
 * status 429), in the foreground as one process with a configuration, logs and temporary files of
 * its own under target/. The count is the server's own access log: {@code $msec $status} per
 * request.
 */
final class NginxServer implements LimiterServer {
  private final Process process;
  private final URI work;
  private final Path accessLog;
  private final String version;
  private volatile long resetAtEpochMillis;

  private NginxServer(Process process, URI work, Path accessLog, String version) {
    this.process = process;
    this.work = work;
    this.accessLog = accessLog;
    this.version = version;
  }

  static NginxServer start(int limit, long windowMillis, String cell)
      throws IOException, InterruptedException {
    String nginx = Runtimes.nginx();
    Path dir = Files.createDirectories(Runtimes.WORK.resolve("nginx").resolve(cell));
    Files.createDirectories(dir.resolve("www"));
    Files.writeString(dir.resolve("www/work"), "{\"ok\":true}");
    Files.deleteIfExists(dir.resolve("access.log"));
    long perMinute = limit * 60_000L / windowMillis;
    if (perMinute * windowMillis != limit * 60_000L) {
      throw new IllegalArgumentException("nginx's rate is whole requests per minute: " + limit
          + " per " + windowMillis + " ms is not");
    }
    int port = freePort();
    String conf = """
        daemon off;
        master_process off;
        worker_processes 1;
        pid %1$s/nginx.pid;
        error_log %1$s/error.log warn;
        events { worker_connections 512; }
        http {
          log_format counted '$msec $status';
          access_log %1$s/access.log counted;
          client_body_temp_path %1$s/client_body;
          proxy_temp_path %1$s/proxy;
          fastcgi_temp_path %1$s/fastcgi;
          uwsgi_temp_path %1$s/uwsgi;
          scgi_temp_path %1$s/scgi;
          limit_req_zone $binary_remote_addr zone=headway:1m rate=%2$dr/m;
          server {
            listen 127.0.0.1:%3$d;
            root %1$s/www;
            location = /work {
              limit_req zone=headway burst=%4$d nodelay;
              limit_req_status 429;
              default_type application/json;
            }
          }
        }
        """.formatted(dir, perMinute, port, limit);
    Files.writeString(dir.resolve("nginx.conf"), conf);
    Process process = new ProcessBuilder(nginx, "-p", dir.toString(), "-c",
        dir.resolve("nginx.conf").toString(), "-e", dir.resolve("error.log").toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!accepts(port)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException(nginx + " did not start on port " + port + ":\n"
            + read(dir.resolve("stdout.log")) + read(dir.resolve("error.log")));
      }
      process.waitFor(50, TimeUnit.MILLISECONDS);
    }
    Process v = new ProcessBuilder(nginx, "-v").redirectErrorStream(true).start();
    String version = new String(v.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
        .strip().replace("nginx version: ", "").replace('/', ' ');
    v.waitFor(10, TimeUnit.SECONDS);
    return new NginxServer(process, URI.create("http://127.0.0.1:" + port + "/work"),
        dir.resolve("access.log"), version + " limit_req");
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file) : "";
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public URI workUri() {
    return work;
  }

  @Override
  public String version() {
    return version;
  }

  @Override
  public void reset() {
    resetAtEpochMillis = System.currentTimeMillis();
  }

  @Override
  public List<Hit> log() throws IOException {
    List<Hit> hits = new ArrayList<>();
    if (!Files.exists(accessLog)) {
      return hits;
    }
    for (String line : Files.readAllLines(accessLog)) {
      String[] fields = line.strip().split(" ");
      if (fields.length != 2) {
        continue;
      }
      long at = Math.round(Double.parseDouble(fields[0]) * 1000) - resetAtEpochMillis;
      if (at >= 0) {
        hits.add(new Hit(at, Integer.parseInt(fields[1])));
      }
    }
    hits.sort(java.util.Comparator.comparingLong(Hit::atMillis));
    return hits;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
