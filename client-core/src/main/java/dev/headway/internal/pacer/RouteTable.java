package dev.headway.internal.pacer;

import dev.headway.RequestInfo;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Owns the scopes of one partition's server policies: its {@link Route}s (at most
 * {@link #MAX_ROUTES}, the least recently used idle one replaced), which policies each route's
 * responses named, and for each policy the units in flight of the routes that do not count
 * against it. A policy constrains a request when the request's route named it; a request of a
 * route not learned yet is constrained by the policies no learned route leaves out (where the
 * dialect documents it, {@link DocumentedRoutes}: by the policy documented for it). Declared and
 * vendor-wide policies constrain every request. Lookups of a known route allocate nothing.
 * Guarded by the partition's monitor.
 */
final class RouteTable {
  /** The most routes one partition keeps. */
  static final int MAX_ROUTES = 256;

  private static final DeclaredScope[] NO_SCOPES = new DeclaredScope[0];

  private Route @Nullable [] slots;
  /** The scopes the user declared for this partition's policies. */
  DeclaredScope[] declaredScopes = NO_SCOPES;
  private int size;
  /** Whether some learned route leaves some policy out (else every policy governs all). */
  private boolean scoped;
  /** Whether a policy's dialect documents which requests it governs (GitHub's: per path). */
  private boolean github;
  /** The dialects that document which requests their policies govern. */
  DocumentedRoutes documented = DocumentedRoutes.NONE;

  /**
   * The last remaining count each server policy's responses gave, for the drops a route's
   * cost is learned from ({@link Route#countMoved}); null until a count arrives.
   */
  private @Nullable Map<PolicyState, long[]> lastCounts;

  /**
   * Returns what {@code permit} costs in request units: the cost its route learned, if any,
   * else {@code configured}.
   */
  long cost(PermitImpl permit, long configured) {
    Route route = find(permit.routeHash());
    long learned = route == null ? 0 : route.learnedCost();
    return learned > 0 ? learned : configured;
  }

  /**
   * A response of {@code route} gave {@code count} remaining for {@code policy}: the route
   * learns how far the count moved since the policy's previous response, and whether that was
   * a drop by a request the server admitted ({@code admitted}).
   */
  void counted(@Nullable Route route, PolicyState policy, long count, boolean admitted) {
    Map<PolicyState, long[]> last = lastCounts;
    if (last == null) {
      last = lastCounts = new IdentityHashMap<>(4);
    }
    long[] previous = last.get(policy);
    if (previous == null) {
      last.put(policy, new long[] {count});
      return;
    }
    long drop = previous[0] - count;
    previous[0] = count;
    if (route != null && drop != 0) {
      route.countMoved(Math.abs(drop), admitted && drop > 0);
    }
  }

  /** Returns the route of {@code hash}, or null if none is held. */
  @Nullable Route find(long hash) {
    Route[] s = slots;
    if (s == null) {
      return null;
    }
    int mask = s.length - 1;
    for (int i = index(hash, mask); ; i = (i + 1) & mask) {
      Route r = s[i];
      if (r == null || r.hash == hash) {
        return r;
      }
    }
  }

  /** Whether any policy is scoped (some learned route leaves it out). */
  boolean scoped() {
    return scoped;
  }

  /**
   * Whether {@code policy} constrains {@code request}, whose route is {@code route} (null if not
   * held) and scope attribute {@code attribute} (null if none). A policy with declared scopes
   * governs exactly the requests they match; a policy of one attribute value, only requests
   * with that value.
   */
  boolean constrains(PolicyState policy, @Nullable Route route, RequestInfo request,
      @Nullable String attribute) {
    String qualifier = policy.qualifier;
    if (qualifier != null && !qualifier.equals(attribute)) {
      return false;
    }
    if (declaredScopes.length > 0 && !policy.declared()) {
      boolean named = false;
      for (DeclaredScope scope : declaredScopes) {
        if (scope.policy.equals(policy.name)) {
          if (scope.matches(request.method(), request.uri().getRawPath())) {
            return true;
          }
          named = true;
        }
      }
      if (named) {
        return false;
      }
    }
    if (!scoped && !github) {
      return true;
    }
    if (policy.declared() || policy.hostWide) {
      return true;
    }
    if (route != null && route.learned()) {
      return route.names(policy);
    }
    String documentedPolicy = github ? documented.policy(policy.source, request.uri()) : null;
    if (documentedPolicy != null) {
      return policy.name.equals(documentedPolicy);
    }
    return policy.excludingRoutes == 0;
  }

  /** Charges {@code permit}'s units to its route and to the policies its route leaves out. */
  void charge(PermitImpl permit, @Nullable Route route, PolicyState[] policies, long now) {
    if (route == null) {
      return;
    }
    route.lastUsedNanos = now;
    route.inFlight.add(permit);
    if (route.learned()) {
      for (PolicyState p : policies) {
        if (route.excludes(p)) {
          p.scopedFlight(permit.base.inFlight).excluded.add(permit);
        }
      }
    }
  }

  /** Takes back what {@link #charge} counted. */
  void uncharge(PermitImpl permit, @Nullable Route route, PolicyState[] policies) {
    if (route == null) {
      return;
    }
    route.inFlight.remove(permit);
    if (route.learned()) {
      for (PolicyState p : policies) {
        if (route.excludes(p)) {
          p.scopedFlight(permit.base.inFlight).excluded.remove(permit);
        }
      }
    }
  }

  /**
   * Returns the route of {@code permit}, added if new (its response named policies, which
   * {@link Route#add} records; then {@link #recount}); null if it could not be kept.
   */
  @Nullable Route route(PermitImpl permit, Partition partition, long now) {
    Route route = find(permit.routeHash());
    return route != null ? route : insert(permit, partition, now);
  }

  /**
   * Counts again, for every policy, the learned routes that leave it out and their units in
   * flight; after what governs a route changed, or the policies did.
   */
  void recount(Partition partition) {
    PolicyState[] policies = partition.policies();
    boolean anyGithub = false;
    for (PolicyState p : policies) {
      p.clearExcluded();
      anyGithub |= documented.covers(p.source);
    }
    github = anyGithub;
    boolean anyScoped = false;
    Route[] s = slots;
    if (s != null) {
      for (Route r : s) {
        if (r == null || !r.learned()) {
          continue;
        }
        for (PolicyState p : policies) {
          if (r.excludes(p)) {
            p.excludingRoutes++;
            p.scopedFlight(partition.inFlight).excluded.addAll(r.inFlight);
            anyScoped = true;
          }
        }
      }
    }
    scoped = anyScoped;
  }

  /**
   * Every route forgets {@code policy}, which left {@code partition}; if one had named it, the
   * counts are taken again at once (a route that named nothing else is no longer learned).
   */
  void forget(PolicyState policy, Partition partition) {
    if (lastCounts != null) {
      lastCounts.remove(policy);
    }
    Route[] s = slots;
    if (s == null) {
      return;
    }
    boolean named = false;
    for (Route r : s) {
      if (r != null) {
        named |= r.forget(policy);
      }
    }
    if (named) {
      recount(partition);
    }
  }

  /** Returns the routes that named {@code policy}, sorted. */
  List<String> routesOf(PolicyState policy) {
    List<String> out = new ArrayList<>();
    Route[] s = slots;
    if (s != null && (scoped || github)) {
      for (Route r : s) {
        if (r != null && r.names(policy)) {
          out.add(r.key);
        }
      }
    }
    out.sort(null);
    return out;
  }

  /** Adds the route of {@code permit}; null if the table is full of busy routes. */
  private @Nullable Route insert(PermitImpl permit, Partition partition, long now) {
    if (slots == null) {
      slots = new Route[16];
    }
    if (size >= MAX_ROUTES && !evictOne(partition)) {
      return null;
    }
    if ((size + 1) * 2 > slots.length) {
      rehash(slots.length * 2);
    }
    Route route = new Route(permit.routeHash(), permit.routeKey(), now);
    put(slots, route);
    size++;
    return route;
  }

  /** Drops the least recently used route with nothing in flight; false if all are busy. */
  private boolean evictOne(Partition partition) {
    Route[] s = slots;
    Route victim = null;
    for (Route r : s) {
      if (r != null && r.inFlight.permits() == 0
          && (victim == null || r.lastUsedNanos < victim.lastUsedNanos)) {
        victim = r;
      }
    }
    if (victim == null) {
      return false;
    }
    Route[] copy = new Route[s.length];
    for (Route r : s) {
      if (r != null && r != victim) {
        put(copy, r);
      }
    }
    slots = copy;
    size--;
    recount(partition);
    return true;
  }

  private void rehash(int capacity) {
    Route[] copy = new Route[capacity];
    for (Route r : slots) {
      if (r != null) {
        put(copy, r);
      }
    }
    slots = copy;
  }

  private static void put(Route[] s, Route route) {
    int mask = s.length - 1;
    int i = index(route.hash, mask);
    while (s[i] != null) {
      i = (i + 1) & mask;
    }
    s[i] = route;
  }

  private static int index(long hash, int mask) {
    return (int) (hash ^ (hash >>> 32)) & mask;
  }
}
