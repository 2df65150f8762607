package dev.headway.redis;

import dev.headway.Scheduler;
import dev.headway.Ticker;
import dev.headway.store.Lease;
import dev.headway.store.QuotaKey;
import dev.headway.store.QuotaStore;
import dev.headway.store.QuotaStoreException;
import dev.headway.store.RefillRate;
import dev.headway.store.ServerCount;
import dev.headway.store.SharedQuota;
import dev.headway.internal.store.StoreArguments;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link QuotaStore} shared through Redis (6.2 or later) by every instance of a fleet, on one
 * thread-safe, asynchronous Lettuce connection per store.
 *
 * <pre>{@code
 * QuotaStore store = RedisQuotaStore.create(URI.create("redis://redis.internal:6379"));
 * }</pre>
 *
 * <h2>One node, Sentinel or Cluster</h2>
 *
 * <ul>
 *   <li>One Redis node (or a managed Redis without cluster mode): {@link #create(URI)} with
 *       {@code redis://host:port} ({@code rediss://} for TLS).
 *   <li>A primary and replicas watched by Sentinels: {@link #create(URI)} with {@code
 *       redis-sentinel://sentinel1:26379,sentinel2:26379#mymaster}. The store asks the Sentinels
 *       where the primary is, and asks again on every reconnection, so it follows a failover.
 *   <li>A Redis Cluster (or a managed Redis or Valkey in cluster mode): {@link
 *       #clusterBuilder(URI...)} with one or more of its nodes. The keys of one quota share a
 *       hash tag, so each script runs on the one node that serves their slot; quotas spread over
 *       the primaries. The store's client follows {@code MOVED} and {@code ASK} and refreshes
 *       its view of the cluster after a failover or a resharding.
 *   <li>Your own Lettuce client ({@link #builder(RedisClient)}, {@link
 *       #builder(RedisClusterClient)}): when the application already configures one (TLS,
 *       credentials, metrics) and should share its threads.
 * </ul>
 *
 * <p>During a failover the calls fail quickly, the pacer paces each instance locally meanwhile
 * (no request fails or waits longer for it), and sharing resumes once the new primary answers.
 * Replication is asynchronous: what the old primary had not yet passed to its replica when it
 * died (a hold, a count, units leased or spent in its last moments) is lost, and the fleet may
 * send a few more requests than the quota allowed in that window.
 *
 * <h2>Keys</h2>
 *
 * Per {@link QuotaKey}, five keys named {@code <prefix>{<partition>|<policy>}:<part>} (prefix
 * {@code headway:} by default; in the names, {@code %}, braces, {@code |}, spaces and non-ASCII
 * bytes are percent-encoded; the braces keep one quota's keys on one Redis Cluster slot). A
 * partition that is an origin is named as it is ({@code https://api.github.com:443}); any other
 * only as its origin and a hash ({@code https://api.telegram.org:443#9c1f...}) unless the store
 * is built with {@link Builder#readableKeys readableKeys}, so that a secret in a path or a custom
 * partition key never reaches Redis:
 *
 * <ul>
 *   <li>{@code :count}, a hash: the last server count ({@code remaining}, {@code observed},
 *       {@code reset}, {@code quota}, {@code window}, epoch milliseconds and units; {@code v} the
 *       format version; {@code assumed} {@code 1} for a window the store started itself, of
 *       which leases take at most two units until a count of it arrives; {@code full}, with a
 *       learned rate, the most units a count showed the server holds once all is back, which a
 *       count grows to no more). Expires one window
 *       after its reset (the store starts the next window with the full quota), or one window
 *       (else a day) after it was observed.
 *   <li>{@code :leases}, a hash: lease id ({@code <sequence>@<instance id>}) to {@code
 *       <units>:<validUntil>} (the units it still holds); units sent ({@link #spent}) and ended leases go to buckets {@code
 *       e:<instant>}, at most 32 (more are merged into the latest), kept (their units taken)
 *       until a count observed at or after that instant; {@code p}, {@code 1:<end>}, the end of
 *       the fleet's probe while the quota has no count (one instance is lent the request at hand,
 *       the others wait for its count). Expires with the count, or a minute after its last lease ends
 *       (every write sets its expiry again: Redis deletes a hash with its last field, TTL and
 *       all). At most 2048 fields: a larger one (not this version's) is deleted unread.
 *   <li>{@code :hold}, a string: the end of a fleet-wide hold, at most a day ahead (a server's
 *       {@code Retry-After} is capped so: {@link dev.headway.SanityCaps}). Expires at that end.
 *   <li>{@code :rate}, a string {@code <units>:<periodMillis>:<learnedAt>}. Expires a day after
 *       it was learned. With a rate, the count grows by it from its instant up to its quota (a
 *       server that gives units back continuously), and is kept until a period after it is all
 *       back.
 *   <li>{@code :instances}, a sorted set: instance id to heartbeat deadline. Expires one
 *       heartbeat after the last call.
 * </ul>
 *
 * <p>Every operation is one Lua script run by {@code EVALSHA} (one round trip), atomic on the
 * quota's keys; after a Redis restart the script is gone, and the store sends it again with
 * {@code EVAL} (a second round trip, once). Times in the keys are the instances' wall clocks:
 * keep the fleet's clocks synchronised (NTP).
 *
 * <h2>Faults</h2>
 *
 * Every call completes within its {@linkplain Builder#timeout timeout}. On a failure (timeout,
 * connection refused, an error reply) the stage completes with a {@link QuotaStoreException},
 * fails further calls at once while it backs off (100 ms doubling to 10 s by default), and
 * probes Redis in the background with {@code PING}; when Redis answers, calls go through again.
 * The pacer using the store logs the outage (one {@code WARNING} naming the cause, one {@code
 * INFO} when sharing resumes, {@link System.Logger} {@code dev.headway.store}); the store's own
 * lines about it are at {@code DEBUG} ({@code dev.headway.redis}). (A cluster's {@code
 * TRYAGAIN}, for a quota whose slot is being migrated, fails only that call.) A value in Redis
 * this version did not write (a hand-edited key, a key of the wrong type, another version's
 * format) is deleted, logged, and treated as absent; never thrown. Values another client wrote
 * get the caps a server's own get ({@link dev.headway.SanityCaps#defaults()}): a hold at most a
 * day ahead, a reset at most a day (or its count's window) ahead; a rate learned more than a
 * minute ahead is deleted; every key found without an expiry is given one. What is logged of
 * such a value is a short printable excerpt.
 *
 * <p>A store created from a {@link URI} (or a cluster's seeds) owns its client: it rejects
 * commands while disconnected rather than queuing them, and {@link #close()} shuts it down. A
 * store created from your {@code RedisClient} or {@code RedisClusterClient} uses its options as
 * they are (prefer {@link ClientOptions.DisconnectedBehavior#REJECT_COMMANDS}: a queued command
 * may run after its call timed out; for a cluster, adaptive and periodic topology refresh) and
 * leaves it open on {@code close}. In a cluster, a node that does not answer makes the whole
 * store back off, as any failure does: every quota is paced locally until it answers again.
 *
 * <p>Thread-safe.
 */
public final class RedisQuotaStore implements QuotaStore {
  private static final System.Logger LOG = System.getLogger("dev.headway.redis");
  private static final long MAX_MILLIS = 253_402_300_799_999L;
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private final ScriptConnection connection;
  private final String keyPrefix;
  private final boolean readableKeys;
  private final long maxLeaseUnits;
  private final Duration maxLeaseDuration;
  private final Duration heartbeat;
  private final InstantSource clock;
  private final String instanceId;
  private final AtomicLong leaseSequence = new AtomicLong();
  private final AtomicBoolean nonsenseLogged = new AtomicBoolean();
  /** Whether {@link #close()} closes the connection: false for {@link #anotherInstance()}'s. */
  private final boolean ownsConnection;
  /** Numbers this store's other instances ({@link #anotherInstance()}). */
  private final AtomicLong otherInstances;

  private RedisQuotaStore(Builder b, AbstractRedisClient client,
      Supplier<ScriptConnection.Commands> opener, @Nullable ClientResources ownResources) {
    this.connection = new ScriptConnection(client, opener, ownResources, b.timeout, b.minBackoff,
        b.maxBackoff, b.ticker, b.scheduler);
    this.keyPrefix = b.keyPrefix;
    this.readableKeys = b.readableKeys;
    this.maxLeaseUnits = b.maxLeaseUnits;
    this.maxLeaseDuration = b.maxLeaseDuration;
    this.heartbeat = b.heartbeat;
    this.clock = b.clock;
    this.instanceId = b.instanceId != null ? b.instanceId
        : UUID.randomUUID().toString().substring(0, 13);
    this.ownsConnection = true;
    this.otherInstances = new AtomicLong();
  }

  /** Another instance on {@code origin}'s connection and settings, named {@code instanceId}. */
  private RedisQuotaStore(RedisQuotaStore origin, String instanceId) {
    this.connection = origin.connection;
    this.keyPrefix = origin.keyPrefix;
    this.readableKeys = origin.readableKeys;
    this.maxLeaseUnits = origin.maxLeaseUnits;
    this.maxLeaseDuration = origin.maxLeaseDuration;
    this.heartbeat = origin.heartbeat;
    this.clock = origin.clock;
    this.instanceId = instanceId;
    this.ownsConnection = false;
    this.otherInstances = origin.otherInstances;
  }

  /**
   * Returns a store on {@code client} (which stays yours to close) with the defaults: one Redis
   * node, or the primary of a Sentinel-managed set if the client's URI is a {@code
   * redis-sentinel://} one.
   *
   * @param client the Lettuce client to use
   * @return the store
   */
  public static RedisQuotaStore create(RedisClient client) {
    return builder(client).build();
  }

  /**
   * Returns a store on a Redis Cluster through {@code client} (which stays yours to close) with
   * the defaults.
   *
   * @param client the Lettuce cluster client to use
   * @return the store
   */
  public static RedisQuotaStore create(RedisClusterClient client) {
    return builder(client).build();
  }

  /**
   * Returns a store on a client of its own for {@code uri} with the defaults: {@code
   * redis://host:port/db} (or {@code rediss://} for TLS) for one node, {@code
   * redis-sentinel://sentinel1:26379,sentinel2:26379#mymaster} for the primary a set of Sentinels
   * names. For a Redis Cluster use {@link #clusterBuilder}.
   *
   * @param uri where Redis listens, or where its Sentinels do
   * @return the store
   * @throws IllegalArgumentException if {@code uri} is not a Redis URI, or names no host, port or
   *     database Lettuce can use (a host name with an underscore, {@code redis_1}, is fine)
   */
  public static RedisQuotaStore create(URI uri) {
    return builder(uri).build();
  }

  /**
   * Returns a builder for a store on {@code client} (which stays yours to close): one node, or
   * the primary of a Sentinel-managed set if the client's URI is a {@code redis-sentinel://}
   * one.
   *
   * @param client the Lettuce client to use
   * @return a new builder
   */
  public static Builder builder(RedisClient client) {
    return new Builder(Objects.requireNonNull(client, "client"), null, null, List.of());
  }

  /**
   * Returns a builder for a store on a Redis Cluster through {@code client} (which stays yours to
   * close), with its options as they are: give it {@link ClusterTopologyRefreshOptions} with
   * adaptive and periodic refresh, so that it learns of a failover or a moved slot before many
   * calls go to the wrong node (Lettuce refreshes neither way by default).
   *
   * @param client the Lettuce cluster client to use
   * @return a new builder
   */
  public static Builder builder(RedisClusterClient client) {
    return new Builder(null, Objects.requireNonNull(client, "client"), null, List.of());
  }

  /**
   * Returns a builder for a store on a client of its own for {@code uri}: {@code
   * redis://host:port/db} (or {@code rediss://} for TLS) for one node; {@code
   * redis-sentinel://sentinel1:26379,sentinel2:26379#mymaster} for the primary that set of
   * Sentinels names, found again through them after a failover. For a Redis Cluster use {@link
   * #clusterBuilder}.
   *
   * @param uri where Redis listens, or where its Sentinels do
   * @return a new builder
   * @throws IllegalArgumentException if {@code uri} is not a Redis URI, or names no host, port or
   *     database Lettuce can use (a host name with an underscore, {@code redis_1}, is fine)
   */
  public static Builder builder(URI uri) {
    return new Builder(null, null, redisUri(Objects.requireNonNull(uri, "uri")), List.of());
  }

  /**
   * Returns a builder for a store on a Redis Cluster, on a cluster client of its own that starts
   * from {@code seeds} ({@code redis://host:port} or {@code rediss://}; one is enough, a few
   * survive one being down) and learns the rest of the cluster from them. That client follows
   * {@code MOVED} and {@code ASK} redirections and refreshes its view of the cluster when a
   * redirection or a disconnection suggests it changed (at most every 10 s) and every 30 s.
   *
   * @param seeds nodes of the cluster
   * @return a new builder
   * @throws IllegalArgumentException if there is no seed, or one is not a {@code redis://} or
   *     {@code rediss://} URI
   */
  public static Builder clusterBuilder(URI... seeds) {
    Objects.requireNonNull(seeds, "seeds");
    if (seeds.length == 0) {
      throw new IllegalArgumentException("seeds must name at least one node of the cluster");
    }
    List<URI> nodes = new ArrayList<>(seeds.length);
    for (URI seed : seeds) {
      URI node = redisUri(Objects.requireNonNull(seed, "seed"));
      if (node.getScheme().contains("sentinel")) {
        throw new IllegalArgumentException("a cluster's seeds are its nodes, not Sentinels, but "
            + "one was " + seed.getScheme() + "://...");
      }
      nodes.add(node);
    }
    return new Builder(null, null, null, List.copyOf(nodes));
  }

  /**
   * {@code uri} with Valkey's schemes ({@code valkey://}, {@code valkeys://}, {@code
   * valkey-sentinel://}) spelled as the Redis ones Lettuce reads; fails on any other scheme.
   */
  private static URI redisUri(URI uri) {
    String scheme = uri.getScheme();
    String redis = scheme == null ? null : switch (scheme.toLowerCase(Locale.ROOT)) {
      case "redis", "valkey" -> "redis";
      case "rediss", "valkeys" -> "rediss";
      case "redis-sentinel", "valkey-sentinel" -> "redis-sentinel";
      case "rediss-sentinel", "valkeys-sentinel" -> "rediss-sentinel";
      case "redis-socket", "valkey-socket" -> "redis-socket";
      default -> null;
    };
    if (redis == null) {
      throw new IllegalArgumentException("uri must be a redis://, rediss:// or redis-sentinel:// "
          + "URI (or Valkey's valkey://, valkeys://, valkey-sentinel://) but was " + scheme
          + "://...");
    }
    URI spelled = redis.equals(scheme) ? uri
        : URI.create(redis + uri.toString().substring(scheme.length()));
    RedisUris.of(spelled); // a host, port or database Lettuce cannot use fails here, not later
    return spelled;
  }

  /**
   * Returns this instance's id in the fleet (its member in the {@code :instances} set).
   *
   * @return the id
   */
  public String instanceId() {
    return instanceId;
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(count, "count");
    return run(key, "observe",
        Long.toString(count.remaining()), millis(count.observedAt()),
        count.resetAt().map(RedisQuotaStore::millis).orElse(""),
        count.quota().isPresent() ? Long.toString(count.quota().getAsLong()) : "",
        count.window().map(RedisQuotaStore::millis).orElse(""))
        .thenApply(Replies.Reply::state);
  }

  @Override
  public CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease,
      long units, Instant sentAt) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(count, "count");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(sentAt, "sentAt");
    StoreArguments.notNegative("units", units);
    return run(key, "observe",
        Long.toString(count.remaining()), millis(count.observedAt()),
        count.resetAt().map(RedisQuotaStore::millis).orElse(""),
        count.quota().isPresent() ? Long.toString(count.quota().getAsLong()) : "",
        count.window().map(RedisQuotaStore::millis).orElse(""),
        lease.id(), Long.toString(Math.min(units, ServerCount.MAX_UNITS)), millis(ceilMillis(sentAt)))
        .thenApply(Replies.Reply::state);
  }

  /** Rounds up to the millisecond (a count observed earlier within it does not hold it). */
  private static Instant ceilMillis(Instant at) {
    int rest = at.getNano() % 1_000_000;
    return rest == 0 ? at : at.plusNanos(1_000_000 - rest);
  }

  @Override
  public CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits) {
    Objects.requireNonNull(key, "key");
    StoreArguments.leaseBounds(minUnits, maxUnits);
    String id = leaseSequence.incrementAndGet() + "@" + instanceId;
    return run(key, "lease", id, Long.toString(minUnits), Long.toString(maxUnits),
        Long.toString(maxLeaseUnits), millis(maxLeaseDuration))
        .thenApply(reply -> Replies.lease(key, id, reply));
  }

  @Override
  public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(lastSentAt, "lastSentAt");
    StoreArguments.notNegative("units", units);
    return run(lease.key(), "spent", lease.id(),
        Long.toString(Math.min(units, ServerCount.MAX_UNITS)), millis(ceilMillis(lastSentAt)))
        .thenApply(Replies.Reply::state);
  }

  @Override
  public CompletionStage<SharedQuota> release(Lease lease, long unusedUnits) {
    Objects.requireNonNull(lease, "lease");
    StoreArguments.notNegative("unusedUnits", unusedUnits);
    return run(lease.key(), "release", lease.id(),
        Long.toString(Math.min(unusedUnits, ServerCount.MAX_UNITS)))
        .thenApply(Replies.Reply::state);
  }

  @Override
  public CompletionStage<SharedQuota> hold(QuotaKey key, Instant until) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(until, "until");
    return run(key, "hold", millis(until)).thenApply(Replies.Reply::state);
  }

  @Override
  public CompletionStage<SharedQuota> lift(QuotaKey key, Instant until) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(until, "until");
    return run(key, "lift", millis(until)).thenApply(Replies.Reply::state);
  }

  @Override
  public CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(rate, "rate");
    return run(key, "rate", Long.toString(rate.units()), millis(rate.period()),
        millis(rate.learnedAt())).thenApply(Replies.Reply::state);
  }

  @Override
  public CompletionStage<SharedQuota> read(QuotaKey key) {
    Objects.requireNonNull(key, "key");
    return run(key, "read").thenApply(Replies.Reply::state);
  }

  /**
   * Closes the connection (and the client, if this store created it). Calls after this fail with
   * a {@link QuotaStoreException}, on this store and on its {@linkplain #anotherInstance() other
   * instances}. On another instance, closes nothing: the connection is its origin's. Idempotent.
   */
  @Override
  public void close() {
    if (ownsConnection) {
      connection.close();
    }
  }

  /**
   * Returns another instance of the fleet on this store's connection and settings, with an id of
   * its own ({@code <this id>~<n>}): what a second {@code Pacer} built with this store while the
   * first is open uses, so that the two count as two instances (one id lends to, and counts,
   * one instance; two pacers on one id would each spend the other's leased units). It fails
   * once this store is closed; its own {@link #close()} closes nothing.
   *
   * @return another instance on this store's connection
   */
  @Override
  public RedisQuotaStore anotherInstance() {
    String base = instanceId.length() > 100 ? instanceId.substring(0, 100) : instanceId;
    return new RedisQuotaStore(this, base + "~" + otherInstances.incrementAndGet());
  }

  @Override
  public String toString() {
    return "RedisQuotaStore[" + keyPrefix + ", " + instanceId + "]";
  }

  private CompletionStage<Replies.Reply> run(QuotaKey key, String op, String... extra) {
    Instant now = clock.instant();
    String[] keys = KeyNames.of(keyPrefix, key, readableKeys);
    String[] args = new String[4 + extra.length];
    args[0] = op;
    args[1] = millis(now);
    args[2] = instanceId;
    args[3] = millis(heartbeat);
    System.arraycopy(extra, 0, args, 4, extra.length);
    return connection.eval(keys, args)
        .thenApply(raw -> {
          Replies.Reply reply = Replies.parse(key, raw, now, this::nonsense);
          if (!reply.warnings().isEmpty()) {
            nonsense(reply.warnings());
          }
          return reply;
        });
  }

  /**
   * Logs what the store found in Redis that it did not write: a short, printable excerpt (any
   * client may have written it), once at WARNING, then at DEBUG.
   */
  private void nonsense(String what) {
    String excerpt = Replies.excerpt(what, Replies.MAX_EXCERPT);
    if (nonsenseLogged.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "Redis quota store ignored a value it did not write: {0} (further "
          + "ones are logged at DEBUG)", excerpt);
    } else {
      LOG.log(Level.DEBUG, "Redis quota store ignored a value it did not write: {0}", excerpt);
    }
  }

  private static String millis(Instant instant) {
    long ms;
    try {
      ms = instant.toEpochMilli();
    } catch (ArithmeticException e) {
      ms = instant.isBefore(Instant.EPOCH) ? 0 : MAX_MILLIS;
    }
    return Long.toString(Math.max(0, Math.min(ms, MAX_MILLIS)));
  }

  private static String millis(Duration duration) {
    return Long.toString(Math.max(1, duration.toMillis()));
  }

  /**
   * Builds a {@link RedisQuotaStore}. Not thread-safe; {@link #build} copies what it was given.
   */
  public static final class Builder {
    private final @Nullable RedisClient client;
    private final @Nullable RedisClusterClient clusterClient;
    private final @Nullable URI uri;
    private final List<URI> clusterSeeds;
    private String keyPrefix = "headway:";
    private boolean readableKeys;
    private Duration timeout = Duration.ofMillis(250);
    private long maxLeaseUnits = 16;
    private Duration maxLeaseDuration = Duration.ofSeconds(1);
    private Duration heartbeat = Duration.ofSeconds(10);
    private Duration minBackoff = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(10);
    private InstantSource clock = InstantSource.system();
    private Ticker ticker = Ticker.system();
    private Scheduler scheduler = Scheduler.system();
    private @Nullable String instanceId;

    private Builder(@Nullable RedisClient client, @Nullable RedisClusterClient clusterClient,
        @Nullable URI uri, List<URI> clusterSeeds) {
      this.client = client;
      this.clusterClient = clusterClient;
      this.uri = uri;
      this.clusterSeeds = clusterSeeds;
    }

    /**
     * Sets the prefix of every key; default {@code headway:}. Give each fleet that must not
     * share state (staging and production on one Redis) its own.
     *
     * @param keyPrefix the prefix
     * @return this builder
     * @throws IllegalArgumentException if longer than 100 characters or containing braces,
     *     spaces or control characters
     */
    public Builder keyPrefix(String keyPrefix) {
      Objects.requireNonNull(keyPrefix, "keyPrefix");
      if (keyPrefix.length() > 100 || keyPrefix.chars().anyMatch(
          c -> c <= ' ' || c == '{' || c == '}' || c == 0x7f)) {
        throw new IllegalArgumentException("keyPrefix must have at most 100 characters and no "
            + "braces, spaces or control characters but was \"" + keyPrefix + "\"");
      }
      this.keyPrefix = keyPrefix;
      return this;
    }

    /**
     * Sets whether partitions are named whole in the keys; default {@code false}: a partition
     * whose key is an origin ({@code https://api.example.com:443}, the default resolver's) is
     * named as it is, any other (a path prefix, a credential hash, a custom resolver's key) as
     * its origin, if it starts with one, then {@code #} and 32 hex digits of the SHA-256 of the
     * whole key, e.g. {@code headway:{https://api.telegram.org:443#9c1f...|requests}:count}, so
     * that a secret in a path or a custom key never reaches Redis, where every client of the
     * server can read key names. Set {@code true} only when your keys hold no secret; every
     * instance of a fleet must use the same setting, or they do not share partitions.
     *
     * @param readableKeys whether to name every partition whole
     * @return this builder
     */
    public Builder readableKeys(boolean readableKeys) {
      this.readableKeys = readableKeys;
      return this;
    }

    /**
     * Sets how long one call may take before it fails (and the pacer paces locally); default
     * 250 ms. A client this store creates connects in the background with a timeout of 5 s (or
     * this timeout if longer).
     *
     * @param timeout the longest a call may take
     * @return this builder
     * @throws IllegalArgumentException if not positive or longer than a minute
     */
    public Builder timeout(Duration timeout) {
      this.timeout = StoreArguments.positive("timeout", timeout, Duration.ofMinutes(1));
      return this;
    }

    /**
     * Sets the most units one lease grants (unless one request costs more); default 16. Leases
     * are also bounded by the available units divided by the instances seen.
     *
     * @param maxLeaseUnits the most units per lease
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxLeaseUnits(long maxLeaseUnits) {
      this.maxLeaseUnits = StoreArguments.maxLeaseUnits(maxLeaseUnits);
      return this;
    }

    /**
     * Sets the longest a lease is valid (never past the window's reset either); default 1 s.
     *
     * @param maxLeaseDuration the longest a lease is valid
     * @return this builder
     * @throws IllegalArgumentException if not positive or longer than a day
     */
    public Builder maxLeaseDuration(Duration maxLeaseDuration) {
      this.maxLeaseDuration =
          StoreArguments.positive("maxLeaseDuration", maxLeaseDuration, Duration.ofDays(1));
      return this;
    }

    /**
     * Sets how long an instance counts as alive after its last call; default 10 s.
     *
     * @param heartbeat how long an instance counts as alive
     * @return this builder
     * @throws IllegalArgumentException if not positive or longer than a day
     */
    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = StoreArguments.positive("heartbeat", heartbeat, Duration.ofDays(1));
      return this;
    }

    /**
     * Sets the backoff after a failure: {@code min} after the first, doubling up to {@code max};
     * default 100 ms to 10 s.
     *
     * @param min the backoff after the first failure
     * @param max the longest backoff
     * @return this builder
     * @throws IllegalArgumentException if not positive, longer than an hour, or min above max
     */
    public Builder backoff(Duration min, Duration max) {
      Duration lo = StoreArguments.positive("min", min, Duration.ofHours(1));
      Duration hi = StoreArguments.positive("max", max, Duration.ofHours(1));
      if (lo.compareTo(hi) > 0) {
        throw new IllegalArgumentException("min must not exceed max but was " + lo + " > " + hi);
      }
      this.minBackoff = lo;
      this.maxBackoff = hi;
      return this;
    }

    /**
     * Sets the wall clock (the instants written to Redis); default the system clock.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sets the ticker that times backoffs; default {@link Ticker#system()}.
     *
     * @param ticker the ticker
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * Sets the scheduler of timeouts and probes; default {@link Scheduler#system()}.
     *
     * @param scheduler the scheduler
     * @return this builder
     */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets this instance's id in the fleet; default a random one. Two live instances must not
     * share an id.
     *
     * @param instanceId the id
     * @return this builder
     * @throws IllegalArgumentException if empty, longer than 128 characters or not printable
     *     ASCII
     */
    public Builder instanceId(String instanceId) {
      Objects.requireNonNull(instanceId, "instanceId");
      if (instanceId.isEmpty() || instanceId.length() > 128
          || instanceId.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
        throw new IllegalArgumentException("instanceId must be 1 to 128 printable ASCII "
            + "characters but was \"" + instanceId + "\"");
      }
      this.instanceId = instanceId;
      return this;
    }

    /**
     * Returns a new store, connected: this waits for the first connection, at most the connect
     * timeout (5 s, or the {@linkplain #timeout call timeout} if longer), so that the first
     * requests share the quota from the start rather than time out on a cold connection (a new
     * JVM's first connect and handshake can take longer than one call's timeout). A Redis that
     * refuses the connection ends the wait at once. If Redis has not answered by then, the store
     * is returned anyway: it keeps connecting in the background, and its calls fail (the pacer
     * paces locally) until Redis answers, as after any outage.
     *
     * @return the store
     */
    public RedisQuotaStore build() {
      RedisQuotaStore store;
      if (client != null) {
        RedisClient c = client;
        store = new RedisQuotaStore(this, c, () -> node(c), null);
      } else if (clusterClient != null) {
        RedisClusterClient c = clusterClient;
        store = new RedisQuotaStore(this, c, () -> cluster(c), null);
      } else if (!clusterSeeds.isEmpty()) {
        store = withOwnClusterClient();
      } else {
        store = withOwnClient();
      }
      store.connection.awaitConnection(connectTimeout());
      return store;
    }

    /**
     * Connects and loads the script: else the first call would find it missing (NOSCRIPT) and
     * send it whole, two round trips within one call's timeout (at a cold start, often past it).
     */
    private static ScriptConnection.Commands node(RedisClient client) {
      StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8);
      try {
        c.sync().scriptLoad(ScriptConnection.SCRIPT);
      } catch (RuntimeException e) {
        LOG.log(Level.DEBUG, "Redis did not load the script now; the first call will: {0}", e);
      }
      return ScriptConnection.Commands.of(c, c.async());
    }

    /**
     * Connects to the cluster, then to each primary, loading the script there: else every
     * primary's first call would open its connection and load the script within one call's
     * timeout. A primary that does not answer now is connected on its first call instead.
     */
    private static ScriptConnection.Commands cluster(RedisClusterClient client) {
      StatefulRedisClusterConnection<String, String> c = client.connect(StringCodec.UTF8);
      for (RedisClusterNode node : c.getPartitions()) {
        if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
          try {
            c.getConnection(node.getNodeId()).sync().scriptLoad(ScriptConnection.SCRIPT);
          } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "Redis Cluster node {0} not ready: {1}", node.getUri(), e);
          }
        }
      }
      return ScriptConnection.Commands.of(c, c.async());
    }

    /** How long the first connection may take: the connect timeout, or the call timeout. */
    private Duration connectTimeout() {
      return timeout.compareTo(CONNECT_TIMEOUT) > 0 ? timeout : CONNECT_TIMEOUT;
    }

    /** Two I/O threads, and reconnections backing off as the store's calls do. */
    private ClientResources ownResources() {
      return DefaultClientResources.builder()
          .ioThreadPoolSize(2)
          .computationThreadPoolSize(2)
          .reconnectDelay(minBackoff.equals(maxBackoff) ? Delay.constant(minBackoff)
              : Delay.exponential(minBackoff, maxBackoff, 2, TimeUnit.MILLISECONDS))
          .build();
    }

    private RedisQuotaStore withOwnClient() {
      RedisURI redisUri = RedisUris.of(Objects.requireNonNull(uri));
      // Connecting happens in the background, calls time out on their own: the connect and
      // handshake may take longer than one call (a cold JVM, TLS).
      Duration connectTimeout = connectTimeout();
      redisUri.setTimeout(connectTimeout);
      ClientResources resources = ownResources();
      RedisClient own = RedisClient.create(resources, redisUri);
      own.setOptions(ClientOptions.builder()
          .autoReconnect(true)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
          .timeoutOptions(TimeoutOptions.enabled(connectTimeout))
          .build());
      return new RedisQuotaStore(this, own, () -> node(own), resources);
    }

    private RedisQuotaStore withOwnClusterClient() {
      Duration connectTimeout = connectTimeout();
      List<RedisURI> seeds = new ArrayList<>();
      for (URI seed : clusterSeeds) {
        RedisURI redisUri = RedisUris.of(seed);
        redisUri.setTimeout(connectTimeout);
        seeds.add(redisUri);
      }
      ClientResources resources = ownResources();
      RedisClusterClient own = RedisClusterClient.create(resources, seeds);
      own.setOptions(ClusterClientOptions.builder()
          .autoReconnect(true)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
          .timeoutOptions(TimeoutOptions.enabled(connectTimeout))
          // A failover or a resharding shows as MOVED, ASK or lost connections: the client
          // reads the topology again then (at most every 10 s), and every 30 s regardless.
          .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
              .enableAllAdaptiveRefreshTriggers()
              .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(10))
              .refreshTriggersReconnectAttempts(3)
              .enablePeriodicRefresh(Duration.ofSeconds(30))
              .build())
          .build());
      return new RedisQuotaStore(this, own, () -> cluster(own), resources);
    }
  }
}
