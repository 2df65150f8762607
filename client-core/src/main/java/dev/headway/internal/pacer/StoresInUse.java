package dev.headway.internal.pacer;

import dev.headway.store.QuotaStore;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which stores open pacers use, so that a second open pacer on one store is another instance of
 * the fleet rather than the same one. One store object is one instance (its id is what the store
 * counts instances by and lends to): two pacers on it would each be told they are alone, or
 * would each spend the other's leased units as their own, and together send more than the quota
 * (four pacers on one Redis store, three units left: four sent, one 429). A pacer takes the store
 * at {@code build()} and gives it back at {@code close()}; a second pacer meanwhile gets {@link
 * QuotaStore#anotherInstance()}. A pacer dropped without {@code close()} keeps its store taken
 * (later pacers on it get other instances, as other processes would be) while the store lives.
 * Thread-safe.
 */
final class StoresInUse {
  /**
   * The stores taken, by identity, held weakly: a pacer dropped without {@code close()} keeps
   * its store taken only while the store itself is alive (a test suite's thousands of stores
   * are not kept). Guarded by itself.
   */
  private static final Map<Integer, List<WeakReference<QuotaStore>>> TAKEN = new HashMap<>();
  /** How many stores were taken; guarded by {@link #TAKEN}. */
  private static long takes;

  private StoresInUse() {}

  /** A store a pacer uses, and how it gives it back. */
  record Taken(QuotaStore store, Runnable giveBack) {}

  /**
   * Returns {@code store} if no open pacer uses it (taken until given back), else another
   * instance of it.
   *
   * @throws IllegalArgumentException if another open pacer uses {@code store} and it has one
   *     instance per object
   */
  static Taken take(QuotaStore store) {
    if (add(store)) {
      return new Taken(store, () -> remove(store));
    }
    QuotaStore other;
    try {
      other = store.anotherInstance();
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException("store " + store + " is already used by another open "
          + "Pacer, and it is one instance of the fleet per object: two pacers on it would each "
          + "spend the other's units as their own. Give each pacer its own store, or close the "
          + "other pacer first", e);
    }
    return new Taken(other, () -> { });
  }

  /** Takes {@code store}; false if it was taken already. */
  private static boolean add(QuotaStore store) {
    synchronized (TAKEN) {
      List<WeakReference<QuotaStore>> same =
          TAKEN.computeIfAbsent(System.identityHashCode(store), k -> new ArrayList<>(1));
      same.removeIf(ref -> ref.get() == null);
      for (WeakReference<QuotaStore> ref : same) {
        if (ref.get() == store) {
          return false;
        }
      }
      same.add(new WeakReference<>(store));
      if (++takes % 64 == 0) { // every 64 takes, forget the stores collected since
        TAKEN.values().removeIf(refs -> {
          refs.removeIf(ref -> ref.get() == null);
          return refs.isEmpty();
        });
      }
      return true;
    }
  }

  private static void remove(QuotaStore store) {
    synchronized (TAKEN) {
      List<WeakReference<QuotaStore>> same = TAKEN.get(System.identityHashCode(store));
      if (same != null) {
        same.removeIf(ref -> ref.get() == null || ref.get() == store);
        if (same.isEmpty()) {
          TAKEN.remove(System.identityHashCode(store));
        }
      }
    }
  }
}
