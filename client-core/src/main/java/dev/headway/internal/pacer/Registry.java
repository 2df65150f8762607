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
 * LRU, amortised O(1) per insertion). A partition that is busy (permits in flight, a hold,
 * callers waiting in line) is never evicted: its state is what keeps those requests within the
 * quota. So the bound holds at rest; while requests are under way the map may exceed it by the
 * partitions they keep busy.
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
      evict(nowNanos, created);
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

  private void evict(long nowNanos, Partition created) {
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
      // First pass: idle partitions at or below the threshold; second pass: any idle one. A
      // busy partition is never evicted (it would lose its in-flight units, hold and line).
      for (int pass = 0; pass < 2 && evicted < toEvict; pass++) {
        for (Map.Entry<String, Partition> e : map.entrySet()) {
          if (evicted >= toEvict) {
            break;
          }
          Partition p = e.getValue();
          if (p == created || (pass == 0 && p.lastUsedNanos > threshold)) {
            continue; // the partition just created is about to be used: never its own victim
          }
          synchronized (p) {
            // Marked evicted under its monitor: a decision that holds it either ran before (and
            // the partition was busy, so it stays) or sees the mark and moves to a new one.
            if (!p.busy(nowNanos) && map.remove(e.getKey(), p)) {
              p.evicted = true;
              evicted++;
            }
          }
        }
      }
    } finally {
      evictLock.unlock();
    }
  }
}
