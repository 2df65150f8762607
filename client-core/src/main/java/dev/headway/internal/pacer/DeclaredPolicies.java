package dev.headway.internal.pacer;

import dev.headway.ClientPolicy;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * Owns the policies the client declared (for every partition, or for named ones) and gives each
 * new partition its own state of them: a token bucket, or a fixed window aligned on the wall
 * clock (at a configured or random start).
 */
final class DeclaredPolicies {
  private final List<ClientPolicy> forAll;
  private final Map<String, List<ClientPolicy>> byPartition;
  private final Map<String, DeclaredScope[]> scopes = new java.util.HashMap<>();
  private final InstantSource wallClock;
  private final JitterSource random;
  private final DocumentedRoutes documented;

  DeclaredPolicies(EngineConfig config, JitterSource random) {
    this.forAll = List.copyOf(config.declaredForAll());
    this.byPartition = Map.copyOf(config.declaredByPartition());
    for (DeclaredScope scope : config.scopes()) {
      DeclaredScope[] old = scopes.getOrDefault(scope.partition, new DeclaredScope[0]);
      DeclaredScope[] copy = java.util.Arrays.copyOf(old, old.length + 1);
      copy[old.length] = scope;
      scopes.put(scope.partition, copy);
    }
    this.wallClock = config.wallClock();
    this.random = random;
    this.documented = new DocumentedRoutes(config.parser().dialects());
  }

  /** Adds the declared policies and scopes of a new partition of the resolver. */
  void declare(Partition partition, long now) {
    partition.routes.documented = documented;
    DeclaredScope[] own = scopes.get(partition.key);
    if (own != null) {
      partition.routes.declaredScopes = own;
    }
    for (ClientPolicy policy : forAll) {
      partition.add(state(policy, now));
    }
    List<ClientPolicy> mine = byPartition.get(partition.key);
    if (mine != null) {
      for (ClientPolicy policy : mine) {
        partition.add(state(policy, now));
      }
    }
  }

  private PolicyState state(ClientPolicy policy, long now) {
    if (policy instanceof ClientPolicy.TokenBucket bucket) {
      return new TokenBucketPolicy(bucket, now);
    }
    ClientPolicy.FixedWindow window = (ClientPolicy.FixedWindow) policy;
    long period = Math.max(1, Time.nanos(window.period()));
    long start;
    if (window.start().isPresent()) {
      start = Time.nanos(window.start().get());
    } else {
      start = random.below(period);
    }
    Instant wall = wallClock.instant();
    long wallNanos = Time.add(Time.mul(Math.max(0, wall.getEpochSecond()), 1_000_000_000L),
        wall.getNano());
    long phase = Math.floorMod(Time.sub(wallNanos, start), period);
    return new FixedWindowPolicy(window, now, now - phase);
  }
}
