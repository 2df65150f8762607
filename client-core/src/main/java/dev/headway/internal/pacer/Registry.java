package dev.headway.internal.pacer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The in-memory {@link PartitionStore}: owns the bounded map of partitions. Lookups of a known
 * partition are a plain {@link ConcurrentHashMap#get} (no allocation). When an insertion takes
 * the map past its bound, the least recently used tenth is evicted in one pass (an approximate
 * LRU, amortised O(1) per insertion), preferring partitions with nothing in flight.
 */
final class Registry implements PartitionStore {
  private final ConcurrentHashMap<String, Partition> map = new ConcurrentHashMap<>();
  private final int maxPartitions;
  private final DeclaredPolicies declared;
  private final ReentrantLock evictLock = new ReentrantLock();

  Registry(int maxPartitions, DeclaredPolicies declared) {
    this.maxPartitions = maxPartitions;
    this.declared = declared;
  }

  @Override
  public @Nullable Partition get(String key) {
    return map.get(key);
  }

  @Override
  public Partition getOrCreate(String key, @Nullable String pk, long nowNanos) {
    Partition p = map.get(key);
    if (p != null) {
      return p;
    }
    Partition created = new Partition(key, pk, nowNanos);
    if (pk == null) {
      declared.declare(created, nowNanos);
    }
    p = map.putIfAbsent(key, created);
    if (p != null) {
      return p;
    }
    if (map.size() > maxPartitions) {
      evict();
    }
    return created;
  }

  @Override
  public int size() {
    return map.size();
  }

  @Override
  public List<Partition> all() {
    return new ArrayList<>(map.values());
  }

  private void evict() {
    if (!evictLock.tryLock()) {
      return;
    }
    try {
      int size = map.size();
      if (size <= maxPartitions) {
        return;
      }
      int target = maxPartitions - maxPartitions / 10;
      int toEvict = size - target;
      long[] ages = new long[size + 16];
      int n = 0;
      for (Partition p : map.values()) {
        if (n == ages.length) {
          break;
        }
        ages[n++] = p.lastUsedNanos;
      }
      Arrays.sort(ages, 0, n);
      long threshold = ages[Math.min(n, toEvict) - 1];
      int evicted = 0;
      // First pass: idle partitions at or below the threshold; second pass: anything.
      for (int pass = 0; pass < 2 && evicted < toEvict; pass++) {
        for (Map.Entry<String, Partition> e : map.entrySet()) {
          if (evicted >= toEvict) {
            break;
          }
          Partition p = e.getValue();
          boolean busy;
          synchronized (p) {
            p.closeLane();
            busy = p.inFlight.permits() > 0;
          }
          if ((pass == 1 || (!busy && p.lastUsedNanos <= threshold))
              && map.remove(e.getKey(), p)) {
            p.evicted = true;
            evicted++;
          }
        }
      }
    } finally {
      evictLock.unlock();
    }
  }
}
