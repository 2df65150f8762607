package dev.headway.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} for the Redis store's tests and the fleet demo, on 127.0.0.1 and an
 * ephemeral port: the one on the {@code PATH} if there is one, else the binary shipped inside the
 * {@code embedded-redis} dependency, extracted to {@code target/}. Never skipped: without a Redis the tests fail and say
 * how to get one.
 */
public final class LocalRedisServer implements AutoCloseable {
  private static final String HOW_TO_GET_ONE = "Install Redis 6.2 or later so that redis-server "
      + "is on the PATH (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), "
      + "or build on linux/macOS amd64/arm64, where the test dependency "
      + "com.github.codemonstur:embedded-redis ships one.";

  private final Path binary;
  private final int port;
  private Process process;

  private LocalRedisServer(Path binary, int port) {
    this.binary = binary;
    this.port = port;
  }

  /** Starts a server on a free port; fails (never skips) if no redis-server can be started. */
  public static LocalRedisServer start() {
    LocalRedisServer server = new LocalRedisServer(binary(), freePort());
    server.restart();
    return server;
  }

  public int port() {
    return port;
  }

  public URI uri() {
    return URI.create("redis://127.0.0.1:" + port);
  }

  /** Starts the server again (on the same port), empty: no keys, no cached scripts. */
  public void restart() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("already running");
    }
    try {
      process = new ProcessBuilder(binary.toString(), "--port", Integer.toString(port),
          "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
          "--protected-mode", "no", "--loglevel", "notice")
          .redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new AssertionError("could not start " + binary + ": " + e + ". " + HOW_TO_GET_ONE, e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
    CompletableFuture<Void> ready = new CompletableFuture<>();
    StringBuilder log = new StringBuilder();
    Process p = process;
    Thread drain = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          synchronized (log) {
            if (log.length() < 20_000) {
              log.append(line).append('\n');
            }
          }
          if (line.contains("Ready to accept connections")) {
            ready.complete(null);
          }
        }
      } catch (IOException e) {
        // the process ended
      }
      ready.completeExceptionally(new IllegalStateException("redis-server exited"));
    }, "redis-server-output");
    drain.setDaemon(true);
    drain.start();
    try {
      ready.get(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      String output;
      synchronized (log) {
        output = log.toString();
      }
      throw new AssertionError("redis-server " + binary + " did not start on port " + port
          + ": " + e + "\n" + output + "\n" + HOW_TO_GET_ONE, e);
    }
  }

  /** Stops the server (SIGTERM; SIGKILL if it lingers) and waits until it is gone. */
  public void stop() {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  @Override
  public void close() {
    stop();
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path binary() {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path candidate = Path.of(dir, "redis-server");
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
    boolean arm = arch.equals("aarch64") || arch.equals("arm64");
    List<String> names;
    if (os.contains("linux") && x64) {
      names = List.of("redis-server-6.2.6-v5-linux-amd64");
    } else if (os.contains("linux") && arm) {
      names = List.of("redis-server-6.2.7-linux-arm64");
    } else if (os.contains("mac") && x64) {
      names = List.of("redis-server-6.2.6-v5-darwin-amd64");
    } else if (os.contains("mac") && arm) {
      names = List.of("redis-server-6.2.6-v5-darwin-arm64");
    } else {
      throw new AssertionError("No redis-server on the PATH, and none shipped for " + os + "/"
          + arch + ". " + HOW_TO_GET_ONE);
    }
    for (String name : names) {
      try (InputStream in = LocalRedisServer.class.getClassLoader().getResourceAsStream(name)) {
        if (in == null) {
          continue;
        }
        Path dir = Path.of("target", "redis-bin");
        Files.createDirectories(dir);
        Path target = dir.resolve(name);
        Path tmp = Files.createTempFile(dir, name, ".tmp");
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
        if (!target.toFile().setExecutable(true)) {
          throw new AssertionError("could not make " + target + " executable. " + HOW_TO_GET_ONE);
        }
        return target.toAbsolutePath();
      } catch (IOException e) {
        throw new AssertionError("could not extract " + name + ": " + e + ". " + HOW_TO_GET_ONE,
            e);
      }
    }
    throw new AssertionError("No redis-server on the PATH, and " + names
        + " is not on the test class path. " + HOW_TO_GET_ONE);
  }
}
