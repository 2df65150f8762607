package dev.headway.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis Cluster of three primaries (no replicas) on 127.0.0.1, from the binary {@link
 * LocalRedisServer} runs: each node started with {@code --cluster-enabled yes}, a third of the
 * 16384 slots given to each by {@code CLUSTER ADDSLOTS}, a config epoch of its own by {@code
 * CLUSTER SET-CONFIG-EPOCH} (as {@code redis-cli --cluster create} does), the nodes introduced by
 * {@code CLUSTER MEET}, and the cluster awaited (at most 30 s) until every node reports it {@code
 * ok} and knows every node's config epoch. Needs no {@code redis-cli}. Never skipped: without a
 * Redis it fails and says how to get one.
 *
 * <p>The epochs matter to a test that moves a slot ({@code CLUSTER SETSLOT ... NODE}): the node
 * taking the slot claims it with an epoch above every epoch it knows, and loses it again, keys
 * deleted, to a node whose epoch is higher still. Nodes started with epoch 0 each settle their
 * collisions by gossip for a second or more after the cluster is {@code ok}; a slot moved meanwhile
 * could go back to its old owner, its keys deleted from the new one.
 */
public final class LocalRedisCluster implements AutoCloseable {
  private static final int SLOTS = 16384;
  private static final Duration FORMED_WITHIN = Duration.ofSeconds(30);

  private final List<LocalRedisServer> nodes;
  private final Path dir;

  private LocalRedisCluster(List<LocalRedisServer> nodes, Path dir) {
    this.nodes = nodes;
    this.dir = dir;
  }

  /** Starts a cluster of three primaries. */
  public static LocalRedisCluster start() {
    return start(3);
  }

  /** Starts a cluster of {@code primaries} primaries, each serving an equal range of slots. */
  public static LocalRedisCluster start(int primaries) {
    return start(primaries, LocalRedisServer.binary());
  }

  /** Starts a cluster of three Valkey primaries (see {@link LocalRedisServer#startValkey()}). */
  public static LocalRedisCluster startValkey() {
    return start(3, LocalRedisServer.valkeyBinary());
  }

  private static LocalRedisCluster start(int primaries, Path binary) {
    Path dir;
    try {
      dir = Files.createTempDirectory("headway-redis-cluster");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<LocalRedisServer> nodes = new ArrayList<>();
    LocalRedisCluster cluster = new LocalRedisCluster(nodes, dir);
    try {
      for (int i = 0; i < primaries; i++) {
        int port = clusterPort();
        nodes.add(LocalRedisServer.start(binary, port, List.of(), List.of("--cluster-enabled",
            "yes", "--cluster-config-file", "nodes-" + port + ".conf", "--cluster-node-timeout",
            "2000", "--dir", dir.toString())));
      }
      for (int i = 0; i < primaries; i++) {
        List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
        for (int slot = i * SLOTS / primaries; slot < (i + 1) * SLOTS / primaries; slot++) {
          addSlots.add(Integer.toString(slot));
        }
        nodes.get(i).command(addSlots.toArray(String[]::new));
        nodes.get(i).command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
      }
      for (int i = 1; i < primaries; i++) {
        nodes.get(0).command("CLUSTER", "MEET", "127.0.0.1", Integer.toString(nodes.get(i).port()));
      }
      cluster.awaitFormed(primaries);
      return cluster;
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  private void awaitFormed(int primaries) {
    long end = System.nanoTime() + FORMED_WITHIN.toNanos();
    String last = "";
    while (System.nanoTime() < end) {
      boolean formed = true;
      for (LocalRedisServer node : nodes) {
        last = node.command("CLUSTER", "INFO");
        if (!last.contains("cluster_state:ok")
            || !last.contains("cluster_known_nodes:" + primaries + "\r")
            || !last.contains("cluster_slots_assigned:" + SLOTS)) {
          formed = false;
          break;
        }
      }
      if (formed && epochsAgreed(primaries)) {
        return;
      }
      try {
        TimeUnit.MILLISECONDS.sleep(50); // waiting for the nodes' gossip, not for pacing
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
    throw new AssertionError("the Redis Cluster did not form within " + FORMED_WITHIN.toSeconds()
        + " s; a node's CLUSTER INFO:\n" + last);
  }

  /**
   * Whether every node knows every node's config epoch, each a different one: then a node that
   * bumps its own epoch to take a slot ends above all of them.
   */
  private boolean epochsAgreed(int primaries) {
    Map<String, String> first = null;
    for (LocalRedisServer node : nodes) {
      Map<String, String> epochs = new HashMap<>();
      for (String line : node.command("CLUSTER", "NODES").split("\n")) {
        String[] fields = line.trim().split(" ");
        if (fields.length > 6) {
          epochs.put(fields[0], fields[6]);
        }
      }
      if (epochs.size() != primaries || new HashSet<>(epochs.values()).size() != primaries
          || (first != null && !first.equals(epochs))) {
        return false;
      }
      first = epochs;
    }
    return true;
  }

  /** The nodes, each serving a third of the slots. */
  public List<LocalRedisServer> nodes() {
    return List.copyOf(nodes);
  }

  /** Every node's {@code redis://127.0.0.1:<port>}. */
  public List<URI> uris() {
    return nodes.stream().map(LocalRedisServer::uri).toList();
  }

  /** Stops every node and deletes their cluster files. */
  @Override
  public void close() {
    for (LocalRedisServer node : nodes) {
      node.stop();
    }
    try (var files = Files.walk(dir)) {
      files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }

  /**
   * A free port whose cluster bus port (the port plus 10000, fixed in Redis 6.2) is free too.
   */
  private static int clusterPort() {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = LocalRedisServer.freePort();
      if (port + 10_000 > 65_535) {
        continue;
      }
      try (ServerSocket bus = new ServerSocket(port + 10_000, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new AssertionError("no free pair of ports (port, port + 10000) on 127.0.0.1");
  }
}
