package dev.headway.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A real Sentinel-managed pair on 127.0.0.1, from the binary {@link LocalRedisServer} runs: a
 * primary, a replica of it, and one Sentinel ({@code redis-server <conf> --sentinel}) watching
 * them under the name {@value #MASTER}, with short timeouts (the primary is down after 1 s
 * without an answer; a failover may take 3 s) so that a test's failover takes a few seconds.
 * Never skipped: without a Redis it fails and says how to get one.
 */
public final class LocalRedisSentinel implements AutoCloseable {
  /** The name the Sentinel knows the primary by. */
  public static final String MASTER = "headway";
  private static final Duration WITHIN = Duration.ofSeconds(30);

  private final List<LocalRedisServer> servers = new ArrayList<>();
  private final Path dir;
  private LocalRedisServer sentinel;

  private LocalRedisSentinel(Path dir) {
    this.dir = dir;
  }

  /** Starts the primary, its replica (awaited in sync) and the Sentinel (awaited watching both). */
  public static LocalRedisSentinel start() {
    Path dir;
    try {
      dir = Files.createTempDirectory("headway-redis-sentinel");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    LocalRedisSentinel set = new LocalRedisSentinel(dir);
    try {
      // A full resynchronisation writes an RDB file: in the set's directory, not the build's.
      LocalRedisServer primary = LocalRedisServer.start(LocalRedisServer.freePort(), List.of(),
          List.of("--dir", dir.toString()));
      set.servers.add(primary);
      LocalRedisServer replica = LocalRedisServer.start(LocalRedisServer.freePort(), List.of(),
          List.of("--dir", dir.toString(), "--replicaof", "127.0.0.1",
              Integer.toString(primary.port())));
      set.servers.add(replica);
      await("the replica in sync with the primary", () -> replica.command("INFO", "replication")
          .contains("master_link_status:up"));
      int port = LocalRedisServer.freePort();
      Path conf = dir.resolve("sentinel-" + port + ".conf");
      Files.writeString(conf, String.join("\n",
          "dir " + dir,
          "sentinel monitor " + MASTER + " 127.0.0.1 " + primary.port() + " 1",
          "sentinel down-after-milliseconds " + MASTER + " 1000",
          "sentinel failover-timeout " + MASTER + " 3000",
          "sentinel parallel-syncs " + MASTER + " 1",
          // Known from the start: else the Sentinel learns of it from the primary's INFO, which
          // it reads every 10 s.
          "sentinel known-replica " + MASTER + " 127.0.0.1 " + replica.port(),
          ""), StandardCharsets.UTF_8);
      set.sentinel = LocalRedisServer.start(port, List.of(conf.toString()),
          List.of("--sentinel"));
      await("the Sentinel watching the primary and its replica", () -> {
        String replicas = set.sentinel.command("SENTINEL", "REPLICAS", MASTER);
        return replicas.contains(Integer.toString(replica.port()))
            && !replicas.contains("disconnected") && !replicas.contains("s_down");
      });
      return set;
    } catch (IOException e) {
      set.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException | Error e) {
      set.close();
      throw e;
    }
  }

  /** {@code redis-sentinel://127.0.0.1:<sentinel port>#headway}. */
  public URI uri() {
    return URI.create("redis-sentinel://127.0.0.1:" + sentinel.port() + "#" + MASTER);
  }

  /** The server the Sentinel names as primary now. */
  public LocalRedisServer primary() {
    int port = primaryPort();
    return servers.stream().filter(s -> s.port() == port).findFirst()
        .orElseThrow(() -> new AssertionError("the Sentinel names an unknown primary: " + port));
  }

  private int primaryPort() {
    String address = sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER);
    return Integer.parseInt(address.split("\n")[1]);
  }

  /**
   * Kills the primary (SIGKILL, as a crash) and returns at once; the Sentinel promotes the
   * replica about 1-3 s later ({@link #awaitFailover}).
   */
  public LocalRedisServer killPrimary() {
    LocalRedisServer primary = primary();
    primary.kill();
    return primary;
  }

  /**
   * Waits, at most {@code within}, until the Sentinel names a live primary other than {@code
   * old} and that server says it is a primary.
   */
  public LocalRedisServer awaitFailover(LocalRedisServer old, Duration within) {
    await("a failover away from port " + old.port(), () -> {
      int port = primaryPort();
      if (port == old.port()) {
        return false;
      }
      return primary().command("ROLE").startsWith("master");
    }, within);
    return primary();
  }

  /** Stops the Sentinel and the servers. */
  @Override
  public void close() {
    if (sentinel != null) {
      sentinel.stop();
    }
    servers.forEach(LocalRedisServer::stop);
    try (var files = Files.walk(dir)) {
      files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }

  private static void await(String what, BooleanSupplier done) {
    await(what, done, WITHIN);
  }

  private static void await(String what, BooleanSupplier done, Duration within) {
    long end = System.nanoTime() + within.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < end) {
      try {
        if (done.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        last = e; // not up yet
      }
      try {
        TimeUnit.MILLISECONDS.sleep(50); // waiting for Redis's own replication and failover
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
    throw new AssertionError("no " + what + " within " + within.toSeconds() + " s", last);
  }
}
