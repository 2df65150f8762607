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
    return builder.build();
  }

  /** Applies every property to {@code builder}; the builder's defaults are the properties'. */
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
    Optional<PartitionKeyResolver> resolver = resolver(properties.partitionKey());
    resolver.ifPresent(builder::partitionKeyResolver);
    PartitionKeyResolver keys = resolver.orElse(PartitionKeyResolver.origin());
    for (int i = 0; i < properties.policies().size(); i++) {
      HeadwayProperties.Policy policy = properties.policies().get(i);
      ClientPolicy declared = policy(policy);
      if (policy.host() == null) {
        builder.declare(declared);
      } else {
        builder.declare(checkedHost("headway.policies[" + i + "].host", policy.host(), keys),
            declared);
      }
    }
    for (int i = 0; i < properties.scopes().size(); i++) {
      HeadwayProperties.Scope scope = properties.scopes().get(i);
      String path = "headway.scopes[" + i + "]";
      String host = checkedHost(path + ".host", text(scope.host()), keys);
      try {
        builder.declare(host, text(scope.route()), text(scope.policy()));
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
   * Returns {@code host} if the pacer can match it to a partition of {@code keys}, the resolver
   * the properties chose: the core's own check, run on a pacer that declares nothing else (it
   * starts no thread). A host the core would reject only when the pacer is built, or never (a
   * scope's), fails here naming its property.
   */
  static String checkedHost(String property, String host, PartitionKeyResolver keys) {
    try (Pacer dry = Pacer.builder().partitionKeyResolver(keys)
        .declare(host, ClientPolicy.tokenBucket("check", 1, Duration.ofSeconds(1))).build()) {
      return host;
    } catch (IllegalArgumentException e) {
      String reason = String.valueOf(e.getMessage());
      int expected = reason.indexOf(": expected ");
      throw new HeadwayStartupException(property + " must be a host, host:port or origin but was"
          + " \"" + host + "\": " + (expected > 0 ? reason.substring(0, expected) : reason),
          "write the host (api.example.com), host and port (api.example.com:8443) or origin"
              + " (http://localhost:8080) the requests go to, without a path", e);
    }
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
