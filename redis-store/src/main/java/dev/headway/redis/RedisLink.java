package dev.headway.redis;

import dev.headway.Scheduler;
import dev.headway.Ticker;
import dev.headway.store.QuotaStoreException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
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
import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisQuotaStore}'s link to Redis: its connection (opened on a thread of its own on
 * first need, then kept: Lettuce reconnects by itself), each call one run of the store's Lua
 * script ({@code EVALSHA}; {@code EVAL} once when Redis lost it), every call bounded by the
 * timeout, and the link's health: after a failure, calls fail at once while backing off
 * (doubling from the smallest to the largest backoff), a background {@code PING} tries Redis
 * again, and an outage is logged once when it starts and once when it ends. Thread-safe.
 */
final class RedisLink {
  private static final System.Logger LOG = System.getLogger("dev.headway.redis");
  static final String SCRIPT = loadScript();
  static final String SCRIPT_SHA = sha1(SCRIPT);

  private final RedisClient client;
  /** The resources of the client the store created (shut down with it); null if given one. */
  private final @Nullable ClientResources ownResources;
  private final Duration timeout;
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final ExecutorService connector;
  private final AtomicBoolean closed = new AtomicBoolean();
  private @Nullable CompletableFuture<StatefulRedisConnection<String, String>> connection;
  // Health, guarded by this.
  private boolean down;
  private int failures;
  private long retryAtNanos;
  private @Nullable Future<?> probe;

  RedisLink(RedisClient client, @Nullable ClientResources ownResources, Duration timeout,
      Duration minBackoff, Duration maxBackoff, Ticker ticker, Scheduler scheduler) {
    this.client = client;
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
   * Runs the store's script on {@code keys} with {@code args}: fails at once with a {@link
   * QuotaStoreException} while backing off, else completes within the timeout.
   */
  CompletionStage<Object> eval(String[] keys, String[] args) {
    Duration backingOff = backingOff();
    if (backingOff != null) {
      return CompletableFuture.failedFuture(new QuotaStoreException(
          "Redis unavailable; next attempt in " + backingOff.toMillis() + " ms"));
    }
    return withTimeout(pending -> connect().thenCompose(c -> script(c, keys, args, pending)));
  }

  /**
   * Closes the connection (and the client, if the store created it) and stops probing.
   * Idempotent.
   */
  void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    CompletableFuture<StatefulRedisConnection<String, String>> c;
    synchronized (this) {
      c = connection;
      if (probe != null) {
        probe.cancel(false);
      }
    }
    if (c != null && ownResources == null) {
      c.thenAccept(StatefulRedisConnection::closeAsync);
    }
    connector.shutdown();
    if (ownResources != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      ownResources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  /** EVALSHA; on NOSCRIPT (Redis restarted or flushed its scripts) EVAL, which caches it again. */
  private CompletionStage<Object> script(StatefulRedisConnection<String, String> c, String[] keys,
      String[] args, AtomicReference<@Nullable Future<?>> pending) {
    RedisFuture<Object> sha = c.async().evalsha(SCRIPT_SHA, ScriptOutputType.MULTI, keys, args);
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
      RedisFuture<Object> eval = c.async().eval(SCRIPT, ScriptOutputType.MULTI, keys, args);
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
          : new QuotaStoreException("Redis call failed: " + cause, cause);
      failed(e);
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
  private CompletableFuture<StatefulRedisConnection<String, String>> connect() {
    synchronized (this) {
      CompletableFuture<StatefulRedisConnection<String, String>> c = connection;
      if (c == null || c.isCompletedExceptionally()) {
        c = CompletableFuture.supplyAsync(() -> client.connect(StringCodec.UTF8), connector);
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
      LOG.log(Level.WARNING, "Redis quota store unavailable ({0}); pacing locally, retrying in "
          + "the background", e.getMessage());
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
      LOG.log(Level.INFO, "Redis quota store answers again; sharing resumes");
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
      RedisFuture<String> ping = c.async().ping();
      pending.set(ping);
      return ping;
    }));
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
    try (InputStream in = RedisQuotaStore.class.getResourceAsStream("quota.lua")) {
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
