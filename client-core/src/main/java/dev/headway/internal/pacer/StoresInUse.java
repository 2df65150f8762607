package dev.headway.internal.pacer;

import dev.headway.store.QuotaStore;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which stores open pacers use, so that a second open pacer on one store is another instance of
 * the fleet rather than the same one. One store object is one instance (its id is what the store
 * counts instances by and lends to): two pacers on it would each be told they are alone, or
 * would each spend the other's leased units as their own, and together send more than the quota
 * (four pacers on one Redis store, three units left: four sent, one 429). A pacer takes the store
 * at {@code build()} and gives it back at {@code close()}; a second pacer meanwhile gets {@link
 * QuotaStore#anotherInstance()}. A pacer dropped without {@code close()} keeps its store taken
 * (later pacers on it get other instances, as other processes would be). Thread-safe.
 */
final class StoresInUse {
  private static final Set<QuotaStore> TAKEN =
      Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

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
    if (TAKEN.add(store)) {
      return new Taken(store, () -> TAKEN.remove(store));
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
}
