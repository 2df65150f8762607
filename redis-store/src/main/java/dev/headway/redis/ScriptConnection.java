package dev.headway.redis;

import dev.headway.Scheduler;
import dev.headway.Ticker;
import dev.headway.store.QuotaStoreException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RedisQuotaStore}'s line to Redis: it runs the store's one script ({@code quota.lua},
 * by EVALSHA, loading it again on NOSCRIPT), connects in the background, bounds each call by the
 * store's timeout, and while Redis is down fails calls at once and probes it with a backoff, so
 * that an outage never holds a request. The same for one node, a Sentinel-managed primary (the
 * client asks the sentinels where the primary is on every reconnect) and a cluster (the cluster
 * client sends each script to the node of its keys' slot, follows MOVED and ASK, and keeps the
 * topology fresh; a node that lacks the script answers NOSCRIPT and gets it by EVAL, node by
 * node). Thread-safe.
 */
final class ScriptConnection {
  private static final System.Logger LOG = System.getLogger("dev.headway.redis");
  static final String SCRIPT = loadScript();
  static final String SCRIPT_SHA = sha1(SCRIPT);

  /**
   * The commands the store sends, on a connection to one node (a single Redis or the primary
   * Sentinel names) or to a cluster.
   */
  interface Commands {
    RedisFuture<Object> evalsha(String sha, String[] keys, String[] args);

    RedisFuture<Object> eval(String script, String[] keys, String[] args);

    RedisFuture<String> ping();

    /** Closes the connection (never the client). */
    CompletableFuture<Void> close();

    /** The commands of {@code connection}, whose asynchronous API is {@code async}. */
    static <C extends RedisScriptingAsyncCommands<String, String>
        & BaseRedisAsyncCommands<String, String>> Commands of(
        StatefulConnection<String, String> connection, C async) {
      return new Commands() {
        @Override
        public RedisFuture<Object> evalsha(String sha, String[] keys, String[] args) {
          return async.evalsha(sha, ScriptOutputType.MULTI, keys, args);
        }

        @Override
        public RedisFuture<Object> eval(String script, String[] keys, String[] args) {
          return async.eval(script, ScriptOutputType.MULTI, keys, args);
        }

        @Override
        public RedisFuture<String> ping() {
          return async.ping();
        }

        @Override
        public CompletableFuture<Void> close() {
          return connection.closeAsync();
        }
      };
    }
  }

  private final AbstractRedisClient client;
  /** Opens a connection (blocking; run on the connector thread). */
  private final Supplier<Commands> opener;
  /** The resources of the client the store created (it shuts both down); null if given one. */
  private final @Nullable ClientResources ownResources;
  private final Duration timeout;
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final ExecutorService connector;
  private final AtomicBoolean closed = new AtomicBoolean();
  private @Nullable CompletableFuture<Commands> connection;
  // Health, guarded by this.
  private boolean down;
  private int failures;
  private long retryAtNanos;
  private @Nullable Future<?> probe;

  ScriptConnection(AbstractRedisClient client, Supplier<Commands> opener,
      @Nullable ClientResources ownResources, Duration timeout, Duration minBackoff,
      Duration maxBackoff, Ticker ticker, Scheduler scheduler) {
    this.client = client;
    this.opener = opener;
    this.ownResources = ownResources;
    this.timeout = timeout;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
    this.ticker = ticker;
    this.scheduler = scheduler;
    this.connector = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "headway-redis-connect");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Runs the script on {@code keys} with {@code args}: its raw reply, or a
   * {@link QuotaStoreException} if the store is closed, Redis is known to be down, or the call
   * fails or times out.
   */
  CompletableFuture<Object> eval(String[] keys, String[] args) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new QuotaStoreException("store closed"));
    }
    Duration backingOff = backingOff();
    if (backingOff != null) {
      return CompletableFuture.failedFuture(new QuotaStoreException(
          "Redis unavailable; next attempt in " + backingOff.toMillis() + " ms"));
    }
    return withTimeout(pending -> connect().thenCompose(c -> script(c, keys, args, pending)));
  }

  /**
   * Closes the connection (and the client, if the store created it); calls after this fail.
   * Idempotent.
   */
  void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    CompletableFuture<Commands> c;
    synchronized (this) {
      c = connection;
      if (probe != null) {
        probe.cancel(false);
      }
    }
    if (c != null && ownResources == null) {
      c.thenAccept(Commands::close);
    }
    connector.shutdown();
    if (ownResources != null) {
      // Lettuce 6.8 closes a cluster client's node connections twice on shutdown: one WARNING
      // "Connection is already closed" (io.lettuce.core.RedisChannelHandler) per node.
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      ownResources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  /** EVALSHA; on NOSCRIPT (Redis restarted or flushed its scripts) EVAL, which caches it again. */
  private CompletionStage<Object> script(Commands c, String[] keys,
      String[] args, AtomicReference<@Nullable Future<?>> pending) {
    // In a cluster both go to the node that serves the keys' slot: each node caches the script
    // on its first NOSCRIPT.
    RedisFuture<Object> sha = c.evalsha(SCRIPT_SHA, keys, args);
    pending.set(sha);
    return sha.handle((reply, error) -> {
      if (error == null) {
        return CompletableFuture.completedFuture(reply);
      }
      Throwable cause = unwrap(error);
      if (!(cause instanceof RedisNoScriptException)
          && !String.valueOf(cause.getMessage()).startsWith("NOSCRIPT")) {
        return CompletableFuture.<Object>failedFuture(cause);
      }
      RedisFuture<Object> eval = c.eval(SCRIPT, keys, args);
      pending.set(eval);
      return eval.toCompletableFuture();
    }).thenCompose(stage -> stage);
  }


  /**
   * Runs {@code call} with the store's timeout; a failure or timeout completes the result with a
   * {@link QuotaStoreException} and starts the backoff, a success ends it.
   */
  private <T> CompletableFuture<T> withTimeout(
      java.util.function.Function<AtomicReference<@Nullable Future<?>>, CompletionStage<T>> call) {
    CompletableFuture<T> result = new CompletableFuture<>();
    AtomicReference<@Nullable Future<?>> pending = new AtomicReference<>();
    Future<?> timer = scheduler.schedule(() -> {
      QuotaStoreException e =
          new QuotaStoreException("Redis did not answer within " + timeout.toMillis() + " ms");
      // The health is updated before the caller hears of the outcome, so that its next call
      // sees it.
      if (!result.isDone()) {
        failed(e);
        result.completeExceptionally(e);
      }
      Future<?> command = pending.get();
      if (command != null) {
        command.cancel(true); // never let a queued command run after its caller gave up
      }
    }, timeout);
    CompletionStage<T> stage;
    try {
      stage = call.apply(pending);
    } catch (RuntimeException | LinkageError e) {
      stage = CompletableFuture.failedFuture(e);
    }
    stage.whenComplete((value, error) -> {
      timer.cancel(false);
      if (result.isDone()) {
        return; // timed out
      }
      if (error == null) {
        succeeded();
        result.complete(value);
        return;
      }
      Throwable cause = unwrap(error);
      QuotaStoreException e = cause instanceof QuotaStoreException q ? q
          : new QuotaStoreException("Redis call failed: " + cause + misconfigured(cause), cause);
      if (!String.valueOf(cause.getMessage()).startsWith("TRYAGAIN")) {
        failed(e);
      } // else: one slot of a cluster is moving; Redis is up, and other quotas go on sharing
      result.completeExceptionally(e);
    });
    return result;
  }


  /**
   * Starts connecting and waits for it, at most {@code wait}. A failure or a timeout is not
   * reported here: the calls made meanwhile report it, as they would any outage.
   */
  void awaitConnection(Duration wait) {
    try {
      connect().get(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.log(Level.DEBUG, "Redis quota store not connected after {0} ms ({1}); connecting in "
          + "the background", wait.toMillis(), e);
    }
  }


  /**
   * Returns the connection, connecting (on the connector thread) if there is none yet or the last
   * attempt failed. Once connected, Lettuce reconnects by itself after a disconnection.
   */
  private CompletableFuture<Commands> connect() {
    synchronized (this) {
      CompletableFuture<Commands> c = connection;
      if (c == null || c.isCompletedExceptionally()) {
        c = CompletableFuture.supplyAsync(opener, connector);
        connection = c;
      }
      return c;
    }
  }


  private synchronized @Nullable Duration backingOff() {
    if (!down) {
      return null;
    }
    long left = retryAtNanos - ticker.read();
    return left > 0 ? Duration.ofNanos(left) : null;
  }

  private void failed(QuotaStoreException e) {
    boolean first;
    Duration delay;
    synchronized (this) {
      first = !down;
      down = true;
      failures = Math.min(failures + 1, 30);
      long nanos = minBackoff.toNanos() << Math.min(failures - 1, 20);
      delay = Duration.ofNanos(Math.min(nanos, maxBackoff.toNanos()));
      retryAtNanos = ticker.read() + delay.toNanos();
      if (probe == null && !closed.get()) {
        probe = scheduler.schedule(this::probe, delay);
      }
    }
    if (first) {
      // DEBUG: the pacer using the store logs the outage once, with this cause (logger
      // dev.headway.store); a WARNING here too made one outage two.
      LOG.log(Level.DEBUG, "Redis quota store unavailable ({0}); failing calls at once, retrying "
          + "in the background in {1} ms", e.getMessage(), delay.toMillis());
    } else {
      LOG.log(Level.DEBUG, "Redis quota store still unavailable ({0}); next attempt in {1} ms",
          e.getMessage(), delay.toMillis());
    }
  }

  private void succeeded() {
    boolean wasDown;
    synchronized (this) {
      wasDown = down;
      down = false;
      failures = 0;
    }
    if (wasDown) {
      LOG.log(Level.DEBUG, "Redis quota store answers again");
    }
  }

  /** The background probe while Redis is down: a PING; on failure the next one is scheduled. */
  private void probe() {
    synchronized (this) {
      probe = null;
      if (!down || closed.get()) {
        return;
      }
    }
    withTimeout(pending -> connect().thenCompose(c -> {
      RedisFuture<String> ping = c.ping();
      pending.set(ping);
      return ping;
    }));
  }


  /**
   * What to add to a failure that says the store was built for the wrong kind of Redis: a store
   * on one node that a Redis Cluster node answers {@code MOVED} (a managed Redis in cluster mode
   * given as {@code redis://host:6379}) fails every call on the other nodes' slots, and the bare
   * {@code MOVED 5798 10.0.0.7:6379} does not say what to do.
   */
  private String misconfigured(Throwable cause) {
    if (!(client instanceof RedisClusterClient)
        && String.valueOf(cause.getMessage()).startsWith("MOVED")) {
      return " (this Redis is a Redis Cluster: build the store with "
          + "RedisQuotaStore.clusterBuilder(...) or builder(RedisClusterClient))";
    }
    return "";
  }

  private static Throwable unwrap(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }


  private static String loadScript() {
    try (InputStream in = ScriptConnection.class.getResourceAsStream("quota.lua")) {
      if (in == null) {
        throw new IllegalStateException("quota.lua missing from the redis-store jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha1(String text) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
