package dev.headway.spring.boot;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code headway.*} properties: how the auto-configured {@link dev.headway.Pacer} paces, which
 * policies it declares, how it names partitions, where a fleet shares its quota, and whether
 * Spring's HTTP client builders are paced. Each property maps onto the
 * {@link dev.headway.Pacer.Builder} option of the same name; the defaults are the builder's.
 *
 * <pre>
 * headway.max-wait=10s
 * headway.policies[0].host=api.example.com
 * headway.policies[0].name=hourly
 * headway.policies[0].limit=5000
 * headway.policies[0].period=1h
 * </pre>
 *
 * <p>Values are checked when they are bound: a bad one fails the application's start with a
 * message naming the property and its value, and so does a {@code headway.*} property that is not
 * one of these (a misspelt name), which would otherwise leave its default in force without a
 * word. Immutable and thread-safe.
 *
 * @param maxWait the longest any call waits for a permit or a retry; positive
 * @param maxAttempts the attempts per call, the first included; at least 1
 * @param strategy how requests are spread over a quota
 * @param lowWater for burst-then-spread: the fraction of the quota below which
 *     requests are spread, in [0, 1]
 * @param jitter the jitter added to computed waits
 * @param maxJitter the most jitter added to a time the server gave; zero or more
 * @param maxPartitions the most partitions kept; at least 1
 * @param baseBackoff the first backoff after a throttled response that gave no time; positive
 * @param maxBackoff the longest such backoff; positive, at least baseBackoff
 * @param retryNonIdempotentOn503 whether a POST or PATCH is retried after a 503 with
 *     Retry-After
 * @param retryBudget how many retries a partition may send while its server keeps throttling
 * @param policies client-side policies to declare, for one host or every partition
 * @param scopes which requests a server policy counts, where the server does not say
 * @param scopeHeader the request header whose value selects which of a server's quotas count a
 *     request (e.g. the model of a language-model API); none when absent
 * @param partitionKey how requests map to partitions
 * @param store where a fleet of instances shares its quota
 * @param customizeClients whether every RestClient.Builder, RestTemplateBuilder
 *     and WebClient.Builder Spring Boot hands out, and every Feign client given the context's
 *     Capability beans, is paced
 * @param metrics the Micrometer metrics
 */
@ConfigurationProperties(prefix = "headway", ignoreUnknownFields = false)
public record HeadwayProperties(
    @DefaultValue("30s") Duration maxWait,
    @DefaultValue("3") int maxAttempts,
    @DefaultValue("burst-then-spread") Strategy strategy,
    @DefaultValue("0.2") double lowWater,
    @DefaultValue("full") JitterKind jitter,
    @DefaultValue("1s") Duration maxJitter,
    @DefaultValue("10000") int maxPartitions,
    @DefaultValue("1s") Duration baseBackoff,
    @DefaultValue("30s") Duration maxBackoff,
    @DefaultValue("false") boolean retryNonIdempotentOn503,
    @DefaultValue RetryBudgetProperties retryBudget,
    @DefaultValue List<Policy> policies,
    @DefaultValue List<Scope> scopes,
    @Nullable String scopeHeader,
    @DefaultValue PartitionKey partitionKey,
    @DefaultValue Store store,
    @DefaultValue("true") boolean customizeClients,
    @DefaultValue Metrics metrics) {

  /**
   * Checks every value; a bad one fails binding with a message naming the property.
   *
   * @param maxWait see {@link #maxWait()}
   * @param maxAttempts see {@link #maxAttempts()}
   * @param strategy see {@link #strategy()}
   * @param lowWater see {@link #lowWater()}
   * @param jitter see {@link #jitter()}
   * @param maxJitter see {@link #maxJitter()}
   * @param maxPartitions see {@link #maxPartitions()}
   * @param baseBackoff see {@link #baseBackoff()}
   * @param maxBackoff see {@link #maxBackoff()}
   * @param retryNonIdempotentOn503 see {@link #retryNonIdempotentOn503()}
   * @param retryBudget see {@link #retryBudget()}
   * @param policies see {@link #policies()}
   * @param scopes see {@link #scopes()}
   * @param scopeHeader see {@link #scopeHeader()}
   * @param partitionKey see {@link #partitionKey()}
   * @param store see {@link #store()}
   * @param customizeClients see {@link #customizeClients()}
   * @param metrics see {@link #metrics()}
   * @throws IllegalArgumentException naming the first property out of its range and its value
   */
  public HeadwayProperties {
    requirePositive("headway.max-wait", maxWait);
    if (maxAttempts < 1) {
      throw bad("headway.max-attempts", "must be at least 1", maxAttempts);
    }
    requireGiven("headway.strategy", strategy);
    if (!(lowWater >= 0 && lowWater <= 1)) {
      throw bad("headway.low-water", "must be within [0, 1]", lowWater);
    }
    requireGiven("headway.jitter", jitter);
    requireGiven("headway.max-jitter", maxJitter);
    if (maxJitter.isNegative()) {
      throw bad("headway.max-jitter", "must not be negative", maxJitter);
    }
    if (maxPartitions < 1) {
      throw bad("headway.max-partitions", "must be at least 1", maxPartitions);
    }
    requirePositive("headway.base-backoff", baseBackoff);
    requirePositive("headway.max-backoff", maxBackoff);
    if (maxBackoff.compareTo(baseBackoff) < 0) {
      throw new IllegalArgumentException("headway.max-backoff must be at least headway.base-backoff ("
          + baseBackoff + ") but was " + maxBackoff);
    }
    requireGiven("headway.retry-budget", retryBudget).check();
    policies = List.copyOf(policies);
    for (int i = 0; i < policies.size(); i++) {
      policies.get(i).check("headway.policies[" + i + "]");
    }
    scopes = List.copyOf(scopes);
    for (int i = 0; i < scopes.size(); i++) {
      scopes.get(i).check("headway.scopes[" + i + "]");
    }
    if (scopeHeader != null && scopeHeader.isBlank()) {
      scopeHeader = null;
    }
    requireGiven("headway.partition-key", partitionKey).check();
    requireGiven("headway.store", store);
    requireGiven("headway.metrics", metrics);
  }

  /** The pacing strategies, as {@link dev.headway.PacingStrategy} names them. */
  public enum Strategy {
    /** Sends without spacing while more than {@code low-water} of the quota is left, then
     *  spreads the rest evenly over the time to reset. */
    BURST_THEN_SPREAD,
    /** Spreads the whole quota evenly over the time to reset. */
    SPREAD,
    /** Spends the quota as fast as requests come, then waits for the reset. */
    USE_ALL_THEN_WAIT
  }

  /** The jitters, as {@link dev.headway.Jitter} names them. */
  public enum JitterKind {
    /** No jitter. */
    NONE,
    /** A backoff becomes random in [0, backoff]; a server's time gets up to max-jitter added. */
    FULL,
    /** A backoff becomes random in [backoff / 2, backoff]; a server's time gets up to half of
     *  max-jitter added. */
    EQUAL,
    /** A backoff becomes random between half of it and three times the previous one. */
    DECORRELATED
  }

  /** The kinds of declared client policy, as {@link dev.headway.ClientPolicy} names them. */
  public enum PolicyType {
    /** {@code limit} units added per {@code period}, at most {@code capacity} held. */
    TOKEN_BUCKET,
    /** {@code limit} units per window of {@code period}, starting at a random offset. */
    FIXED_WINDOW
  }

  /**
   * A client-side policy the pacer enforces on itself.
   *
   * @param host the partition it applies to: a host (api.example.com, HTTPS on 443),
   *     host and port, or origin (http://localhost:8080); absent for every partition
   * @param name the policy's name, as metrics and the Actuator endpoint show it
   * @param type token bucket or fixed window
   * @param limit units per period; positive; required
   * @param period the period; positive; required
   * @param capacity the most units a token bucket holds (a fixed window: that can accumulate);
   *     absent for limit
   */
  public record Policy(@Nullable String host, @Nullable String name,
      @DefaultValue("token-bucket") PolicyType type, @Nullable Long limit,
      @Nullable Duration period,
      @Nullable Long capacity) {

    void check(String path) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException(path + ".name must be given (the policy's name, e.g."
            + " hourly)");
      }
      requireGiven(path + ".type", type);
      if (limit == null) {
        throw new IllegalArgumentException(path + ".limit must be given (the units per period,"
            + " e.g. 5000)");
      }
      if (limit <= 0) {
        throw bad(path + ".limit", "must be positive", limit);
      }
      if (period == null) {
        throw new IllegalArgumentException(path + ".period must be given (e.g. 1m, 1h)");
      }
      requirePositive(path + ".period", period);
      if (capacity != null && capacity < limit && type == PolicyType.FIXED_WINDOW) {
        throw bad(path + ".capacity", "must be at least limit (" + limit + ")", capacity);
      }
      if (capacity != null && capacity <= 0) {
        throw bad(path + ".capacity", "must be positive", capacity);
      }
      if (host != null && host.isBlank()) {
        throw new IllegalArgumentException(path + ".host must not be blank; leave it out for"
            + " every partition");
      }
    }
  }

  /**
   * Which requests of a host a server policy counts, where the server does not say.
   *
   * @param host the partition, named as a policy's host is
   * @param route an optional upper-case method and a path pattern, e.g. GET /search/**
   * @param policy the server policy's name, as its responses spell it
   */
  public record Scope(@Nullable String host, @Nullable String route, @Nullable String policy) {
    void check(String path) {
      requireText(path + ".host", host, "the partition, e.g. api.github.com");
      requireText(path + ".route", route, "the requests it counts, e.g. GET /search/**");
      requireText(path + ".policy", policy,
          "the server policy's name, as its responses spell it");
    }
  }

  /**
   * How requests map to partitions (each partition has its own quota). By default by origin;
   * with {@code credential-header}, by origin and a hash of that header's value, so that each
   * user's key gets its own quota.
   *
   * @param credentialHeader the request header that carries the credential, e.g.
   *     Authorization; absent to key by origin
   * @param fleetSecret the secret every instance sharing a store hashes the credential with (at
   *     least 16 characters); absent for a random salt per process
   * @param pathSegments to key by origin and this many leading path segments instead; 0 for none
   */
  public record PartitionKey(@Nullable String credentialHeader, @Nullable String fleetSecret,
      @DefaultValue("0") int pathSegments) {

    void check() {
      if (credentialHeader != null && credentialHeader.isBlank()) {
        throw new IllegalArgumentException("headway.partition-key.credential-header must not be"
            + " blank; leave it out to key partitions by origin");
      }
      if (fleetSecret != null && credentialHeader == null) {
        throw new IllegalArgumentException("headway.partition-key.fleet-secret is set but"
            + " headway.partition-key.credential-header is not: the secret hashes that header");
      }
      if (fleetSecret != null && fleetSecret.length() < 16) {
        // Never echo a secret.
        throw new IllegalArgumentException("headway.partition-key.fleet-secret must have at"
            + " least 16 characters but had " + fleetSecret.length());
      }
      if (pathSegments < 0) {
        throw bad("headway.partition-key.path-segments", "must not be negative", pathSegments);
      }
      if (pathSegments > 0 && credentialHeader != null) {
        throw new IllegalArgumentException("headway.partition-key.path-segments and"
            + " headway.partition-key.credential-header cannot both be set: choose one key");
      }
    }

    /** Never shows the secret. */
    @Override
    public String toString() {
      return "PartitionKey[credentialHeader=" + credentialHeader + ", fleetSecret="
          + (fleetSecret == null ? "none" : "(set)") + ", pathSegments=" + pathSegments + "]";
    }
  }

  /**
   * Where a fleet of instances shares its quota.
   *
   * @param redisUri the Redis server of headway-redis-store (which must be on the class
   *     path), e.g. redis://redis.internal:6379, or its Sentinels,
   *     redis-sentinel://s1:26379,s2:26379#mymaster; absent for no sharing
   */
  public record Store(@Nullable URI redisUri) {
    /** Never shows a password the URI may hold. */
    @Override
    public String toString() {
      if (redisUri == null) {
        return "Store[redisUri=none]";
      }
      // A Sentinel URI naming several hosts has no single host: its scheme alone.
      String host = redisUri.getHost();
      return "Store[redisUri=" + redisUri.getScheme() + "://" + (host == null ? "..." : host) + "]";
    }
  }

  /**
   * The retry budget ({@link dev.headway.RetryBudget}): off unless {@code enabled}. When on, each
   * partition may send {@code retries} retries of throttled or unavailable responses in a row,
   * and each successful response gives back {@code refillPerSuccess} of one; a retry the budget
   * cannot pay for is not sent and the call gets the response it had, at once.
   *
   * <pre>
   * headway.retry-budget.enabled=true
   * headway.retry-budget.retries=20
   * headway.retry-budget.refill-per-success=0.2
   * </pre>
   *
   * @param enabled whether calls share a retry budget per partition
   * @param retries the most retries a partition may send with no success in between; at least 1
   * @param refillPerSuccess the share of a retry a successful response gives back, in (0, 1]
   */
  public record RetryBudgetProperties(@DefaultValue("false") boolean enabled,
      @DefaultValue("20") int retries, @DefaultValue("0.2") double refillPerSuccess) {
    void check() {
      if (retries < 1) {
        throw bad("headway.retry-budget.retries", "must be at least 1", retries);
      }
      if (!(refillPerSuccess > 0 && refillPerSuccess <= 1)) {
        throw bad("headway.retry-budget.refill-per-success", "must be within (0, 1]",
            refillPerSuccess);
      }
    }

    /**
     * Returns the budget these properties describe.
     *
     * @return {@link dev.headway.RetryBudget#off()} unless enabled
     */
    public dev.headway.RetryBudget toBudget() {
      return enabled ? new dev.headway.RetryBudget(retries, refillPerSuccess)
          : dev.headway.RetryBudget.off();
    }
  }

  /**
   * The Micrometer metrics ({@code headway.*} meters of {@code headway-micrometer}).
   *
   * @param enabled whether they are published when Micrometer and a MeterRegistry are
   *     present
   */
  public record Metrics(@DefaultValue("true") boolean enabled) {}

  private static void requirePositive(String property, @Nullable Duration value) {
    requireGiven(property, value);
    if (value.isNegative() || value.isZero()) {
      throw bad(property, "must be positive", value);
    }
  }

  private static void requireText(String property, @Nullable String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(property + " must be given (" + what + ")");
    }
  }

  /** Bound from properties, a value with a default is never null; constructed in code, it may
   *  be: the message names the property as it is written. */
  private static <T> T requireGiven(String property, @Nullable T value) {
    if (value == null) {
      throw new NullPointerException(property + " must not be null");
    }
    return value;
  }

  private static IllegalArgumentException bad(String property, String rule, Object value) {
    return new IllegalArgumentException(property + " " + rule + " but was " + value);
  }
}
