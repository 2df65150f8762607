package dev.headway.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} for the Redis store's tests and the fleet demo, on 127.0.0.1 and an
 * ephemeral port: the one on the {@code PATH} if there is one, else the binary shipped inside the
 * {@code embedded-redis} dependency, extracted to {@code target/}. Never skipped: without a Redis the tests fail and say
 * how to get one. {@link LocalRedisCluster} and {@link LocalRedisSentinel} start several of them.
 */
public final class LocalRedisServer implements AutoCloseable {
  private static final String HOW_TO_GET_ONE = "Install Redis 6.2 or later so that redis-server "
      + "is on the PATH (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), "
      + "or build on linux/macOS amd64/arm64, where the test dependency "
      + "com.github.codemonstur:embedded-redis ships one.";

  private static Path binary;

  private final Path binaryPath;
  private final int port;
  /** Arguments before the options (a configuration file), and options after the defaults. */
  private final List<String> leading;
  private final List<String> options;
  private Process process;

  private LocalRedisServer(Path binary, int port, List<String> leading, List<String> options) {
    this.binaryPath = binary;
    this.port = port;
    this.leading = List.copyOf(leading);
    this.options = List.copyOf(options);
  }

  /** Starts a server on a free port; fails (never skips) if no redis-server can be started. */
  public static LocalRedisServer start() {
    return start(freePort(), List.of(), List.of());
  }

  /**
   * Starts a server on {@code port}, with {@code leading} arguments before the options (a
   * configuration file) and {@code options} after the defaults (they win over them).
   */
  static LocalRedisServer start(int port, List<String> leading, List<String> options) {
    return start(binary(), port, leading, options);
  }

  static LocalRedisServer start(Path binary, int port, List<String> leading,
      List<String> options) {
    LocalRedisServer server = new LocalRedisServer(binary, port, leading, options);
    server.restart();
    return server;
  }

  /**
   * Starts a Valkey server ({@code valkey-server}, Redis's open-source fork) on a free port; fails
   * (never skips) if there is none.
   */
  public static LocalRedisServer startValkey() {
    return start(valkeyBinary(), freePort(), List.of(), List.of());
  }

  /**
   * The {@code valkey-server} named by {@code -Dheadway.valkey}, else the one on the {@code PATH};
   * fails with the command that installs one.
   */
  static Path valkeyBinary() {
    String named = System.getProperty("headway.valkey");
    if (named != null && !named.isBlank()) {
      return Path.of(named);
    }
    Path found = onPath("valkey-server");
    if (found == null) {
      throw new AssertionError("No valkey-server on the PATH (or -Dheadway.valkey=/path/to/it). "
          + "Debian 12: add bookworm-backports to the apt sources, then apt-get install -t "
          + "bookworm-backports valkey-server; Debian 13, Ubuntu 24.10+: apt-get install "
          + "valkey-server; macOS: brew install valkey. .ci/run installs it.");
    }
    return found;
  }

  private static Path onPath(String name) {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    return null;
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
    List<String> command = new ArrayList<>();
    command.add(binaryPath.toString());
    command.addAll(leading);
    command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "no", "--daemonize", "no", "--protected-mode", "no", "--loglevel",
        "notice"));
    command.addAll(options);
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new AssertionError("could not start " + binaryPath + ": " + e + ". " + HOW_TO_GET_ONE,
          e);
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
          // A Sentinel says neither: it says its id once it listens.
          if (line.contains("Ready to accept connections") || line.contains("Sentinel ID is")) {
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
      throw new AssertionError("redis-server " + binaryPath + " did not start on port " + port
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

  /** Kills the server at once (SIGKILL), as a crash would, and waits until it is gone. */
  public void kill() {
    if (process == null) {
      return;
    }
    try {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether the server runs. */
  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /**
   * Sends one command on a connection of its own and returns the reply: a status, a bulk string
   * or an integer as text, an array as its elements one per line; null for a null reply.
   *
   * @throws IllegalStateException for an error reply
   * @throws UncheckedIOException if the server does not answer within 5 s
   */
  public String command(String... args) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(5_000);
      StringBuilder request = new StringBuilder().append('*').append(args.length).append("\r\n");
      for (String arg : args) {
        byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
        request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
      }
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      return reply(socket.getInputStream());
    } catch (IOException e) {
      throw new UncheckedIOException("redis on port " + port + ": " + args[0] + " ...", e);
    }
  }

  private static String reply(InputStream in) throws IOException {
    String line = line(in);
    String rest = line.substring(1);
    switch (line.charAt(0)) {
      case '+':
      case ':':
        return rest;
      case '-':
        throw new IllegalStateException(rest);
      case '$': {
        int length = Integer.parseInt(rest);
        if (length < 0) {
          return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
      }
      case '*': {
        int count = Integer.parseInt(rest);
        if (count < 0) {
          return null;
        }
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < count; i++) {
          all.append(i == 0 ? "" : "\n").append(reply(in));
        }
        return all.toString();
      }
      default:
        throw new IOException("not a RESP reply: " + line);
    }
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c; (c = in.read()) != '\n'; ) {
      if (c < 0) {
        throw new IOException("connection closed mid-reply");
      }
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  @Override
  public void close() {
    stop();
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static synchronized Path binary() {
    if (binary == null) {
      binary = findBinary();
    }
    return binary;
  }

  private static Path findBinary() {
    Path onPath = onPath("redis-server");
    if (onPath != null) {
      return onPath;
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
