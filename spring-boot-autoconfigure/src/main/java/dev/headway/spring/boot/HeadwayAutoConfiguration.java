package dev.headway.spring.boot;

import dev.headway.ClientPolicy;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacerListener;
import dev.headway.PacingStrategy;
import dev.headway.PartitionKeyResolver;
import dev.headway.redis.RedisQuotaStore;
import dev.headway.store.QuotaStore;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configures one {@link Pacer} from the {@code headway.*} properties
 * ({@link HeadwayProperties}), unless the application defines a {@code Pacer} bean of its own.
 * The pacer hears every {@link PacerListener} bean (such as the Micrometer metrics), shares its
 * quota through the {@link QuotaStore} bean if there is one (with {@code headway-redis-store} on
 * the class path, {@code headway.store.redis-uri} makes one), is then changed by every
 * {@link HeadwayPacerCustomizer} bean, and is closed when the context closes.
 */
@AutoConfiguration
@ConditionalOnClass(Pacer.class)
@EnableConfigurationProperties(HeadwayProperties.class)
public final class HeadwayAutoConfiguration {
  /** Creates the auto-configuration; Spring Boot does, from its imports file. */
  public HeadwayAutoConfiguration() {}

  /**
   * Returns the pacer the {@code headway.*} properties describe.
   *
   * @param properties the {@code headway.*} properties
   * @param listeners the listener beans, each added to the pacer
   * @param store the store the fleet shares its quota through, if any
   * @param customizers the customizer beans, run in order after the properties were applied
   * @return the pacer; closed with the context
   * @throws IllegalStateException if {@code headway.store.redis-uri} is set but there is no store
   *     (headway-redis-store is not on the class path)
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Pacer headwayPacer(HeadwayProperties properties,
      ObjectProvider<PacerListener> listeners, ObjectProvider<QuotaStore> store,
      ObjectProvider<HeadwayPacerCustomizer> customizers) {
    Pacer.Builder builder = Pacer.builder();
    apply(properties, builder);
    listeners.orderedStream().forEach(builder::listener);
    QuotaStore shared = store.getIfUnique();
    if (shared != null) {
      builder.store(shared);
    } else if (properties.store().redisUri() != null) {
      throw new HeadwayStartupException("headway.store.redis-uri is set but there is no QuotaStore",
          "add the dependency dev.headway:headway-redis-store (or remove the property)", null);
    }
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    Pacer pacer;
    try {
      pacer = builder.build();
    } catch (IllegalArgumentException e) {
      throw policyHostFailure(properties, e);
    }
    try {
      checkScopeHosts(properties, pacer.partitionKeyResolver());
    } catch (RuntimeException e) {
      pacer.close();
      throw e;
    }
    return pacer;
  }

  /**
   * Applies every property to {@code builder}; the builder's defaults are the properties'. The
   * hosts are checked later, against the resolver the pacer is built with (a customizer may set
   * another): a policy's by {@code build()} ({@link #policyHostFailure}), a scope's by
   * {@link #checkScopeHosts}.
   */
  static void apply(HeadwayProperties properties, Pacer.Builder builder) {
    builder.maxWait(properties.maxWait())
        .maxAttempts(properties.maxAttempts())
        .strategy(strategy(properties))
        .jitter(jitter(properties.jitter()))
        .maxJitter(properties.maxJitter())
        .maxPartitions(properties.maxPartitions())
        .baseBackoff(properties.baseBackoff())
        .maxBackoff(properties.maxBackoff())
        .retryNonIdempotentOn503(properties.retryNonIdempotentOn503())
        .retryBudget(properties.retryBudget().toBudget());
    resolver(properties.partitionKey()).ifPresent(builder::partitionKeyResolver);
    for (HeadwayProperties.Policy policy : properties.policies()) {
      ClientPolicy declared = policy(policy);
      if (policy.host() == null) {
        builder.declare(declared);
      } else {
        builder.declare(policy.host(), declared);
      }
    }
    for (int i = 0; i < properties.scopes().size(); i++) {
      HeadwayProperties.Scope scope = properties.scopes().get(i);
      String path = "headway.scopes[" + i + "]";
      try {
        builder.declare(text(scope.host()), text(scope.route()), text(scope.policy()));
      } catch (IllegalArgumentException e) {
        // The core names its parameter first ("route must be ..."): the property is its path.
        throw new HeadwayStartupException(path + "." + e.getMessage(),
            "write an optional upper-case method and a path pattern whose segments are literal,"
                + " * or {name} and whose last may be **, e.g. GET /search/**", e);
      }
    }
    String header = properties.scopeHeader();
    if (header != null) {
      builder.scopeAttribute(request -> request.headers().firstValue(header).orElse(null));
    }
  }

  private static PacingStrategy strategy(HeadwayProperties properties) {
    return switch (properties.strategy()) {
      case BURST_THEN_SPREAD -> PacingStrategy.burstThenSpread(properties.lowWater());
      case SPREAD -> PacingStrategy.spread();
      case USE_ALL_THEN_WAIT -> PacingStrategy.useAllThenWait();
    };
  }

  private static Jitter jitter(HeadwayProperties.JitterKind kind) {
    return switch (kind) {
      case NONE -> Jitter.none();
      case FULL -> Jitter.full();
      case EQUAL -> Jitter.equal();
      case DECORRELATED -> Jitter.decorrelated();
    };
  }

  private static Optional<PartitionKeyResolver> resolver(HeadwayProperties.PartitionKey key) {
    String header = key.credentialHeader();
    String secret = key.fleetSecret();
    if (header != null) {
      return Optional.of(secret == null
          ? PartitionKeyResolver.originAndCredential(header)
          : PartitionKeyResolver.originAndCredential(header, secret));
    }
    if (key.pathSegments() > 0) {
      return Optional.of(PartitionKeyResolver.originAndPathPrefix(key.pathSegments()));
    }
    return Optional.empty();
  }

  private static ClientPolicy policy(HeadwayProperties.Policy policy) {
    String name = text(policy.name());
    long limit = Objects.requireNonNull(policy.limit(), "limit, checked when bound");
    Long capacity = policy.capacity();
    Duration period = Objects.requireNonNull(policy.period(), "period, checked when bound");
    return switch (policy.type()) {
      case TOKEN_BUCKET -> capacity == null
          ? ClientPolicy.tokenBucket(name, limit, period)
          : ClientPolicy.tokenBucket(name, limit, period, capacity, Long.MAX_VALUE);
      case FIXED_WINDOW -> capacity == null
          ? ClientPolicy.fixedWindow(name, limit, period)
          : ClientPolicy.fixedWindow(name, limit, period, capacity, Long.MAX_VALUE,
              Optional.empty());
    };
  }

  /**
   * Returns the failure to report for {@code failure}, thrown by {@code build()}: if it names the
   * host of a {@code headway.policies[i]} (the core checks a declared host against the resolver
   * the pacer is built with, after the customizers), a report naming that property; else
   * {@code failure} itself.
   */
  static RuntimeException policyHostFailure(HeadwayProperties properties,
      IllegalArgumentException failure) {
    String reason = String.valueOf(failure.getMessage());
    for (int i = 0; i < properties.policies().size(); i++) {
      String host = properties.policies().get(i).host();
      if (host != null && reason.startsWith("partition \"" + host + "\"")) {
        return hostFailure("headway.policies[" + i + "].host", host, failure);
      }
    }
    return failure;
  }

  /**
   * Checks each {@code headway.scopes[i].host} as the core checks a policy's host, with
   * {@code keys}, the resolver the pacer was built with: the core does not check a scope's host
   * (any name may be a custom resolver's key), but with an origin-keyed resolver one that is not
   * a host, host:port or origin can never match.
   */
  static void checkScopeHosts(HeadwayProperties properties, PartitionKeyResolver keys) {
    for (int i = 0; i < properties.scopes().size(); i++) {
      String host = text(properties.scopes().get(i).host());
      try (Pacer dry = Pacer.builder().partitionKeyResolver(keys)
          .declare(host, ClientPolicy.tokenBucket("check", 1, Duration.ofSeconds(1))).build()) {
        // The core's own check, on a pacer that declares nothing else (it starts no thread).
      } catch (IllegalArgumentException e) {
        throw hostFailure("headway.scopes[" + i + "].host", host, e);
      }
    }
  }

  private static HeadwayStartupException hostFailure(String property, String host,
      IllegalArgumentException failure) {
    String reason = String.valueOf(failure.getMessage());
    int expected = reason.indexOf(": expected ");
    return new HeadwayStartupException(property + " must be a host, host:port or origin but was"
        + " \"" + host + "\": " + (expected > 0 ? reason.substring(0, expected) : reason),
        "write the host (api.example.com), host and port (api.example.com:8443) or origin"
            + " (http://localhost:8080) the requests go to, without a path", failure);
  }

  private static String text(@Nullable String checked) {
    return Objects.requireNonNull(checked, "checked when bound");
  }

  /** The Redis store, when headway-redis-store is on the class path and a URI is given. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisQuotaStore.class)
  @ConditionalOnProperty("headway.store.redis-uri")
  static class RedisStoreConfiguration {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    QuotaStore headwayQuotaStore(HeadwayProperties properties) {
      URI uri = properties.store().redisUri();
      if (uri == null) {
        // Present but empty: the condition matched, the binder gave no URI.
        throw new HeadwayStartupException("headway.store.redis-uri is empty",
            "give a URI such as redis://127.0.0.1:6379 (or remove the property)", null);
      }
      try {
        return RedisQuotaStore.create(uri);
      } catch (IllegalArgumentException e) {
        throw new HeadwayStartupException("headway.store.redis-uri is not usable: "
            + e.getMessage(), "give a URI such as redis://127.0.0.1:6379 (or remove the property)", e);
      }
    }
  }
}
