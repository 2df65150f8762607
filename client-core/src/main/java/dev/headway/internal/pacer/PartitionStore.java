package dev.headway.internal.pacer;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where partitions, and so all quota state, live. The engine finds a partition here by key and
 * then works on it under its monitor; {@link Registry} keeps them in memory, bounded. This is the
 * seam for state kept elsewhere (shared by several instances, or in virtual time).
 */
interface PartitionStore {
  /** Returns the partition of {@code key}, or null if none is held. */
  @Nullable Partition get(String key);

  /**
   * Returns the partition of {@code key}, created at {@code nowNanos} (with its declared
   * policies, if {@code pk} is null) if none is held; {@code pk} is the server's partition key
   * of a sub-partition.
   */
  Partition getOrCreate(String key, @Nullable String pk, long nowNanos);

  /** Returns the number of partitions held. */
  int size();

  /** Returns every partition held (a copy). */
  List<Partition> all();
}
