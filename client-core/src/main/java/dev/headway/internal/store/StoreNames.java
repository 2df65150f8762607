package dev.headway.internal.store;

import dev.headway.internal.pacer.PartitionNames;
import dev.headway.internal.pacer.Sha256;

/**
 * How a store names a partition where others can read it (a shared Redis): a plain origin
 * ({@code scheme://host:port}, the default resolver's key) as it is; a key that starts with an
 * origin and has more (a path prefix, a credential hash, a custom resolver's suffix) as that
 * origin, {@code #} and the first 32 hex digits (128 bits) of the SHA-256 of the whole key
 * (UTF-8); any other key as {@code #} and that hash. A path or a custom key may carry a secret
 * ({@code /bot<token>/}, {@code /hooks/<secret>}); the hash keeps partitions apart (and the same
 * in every process) without showing it. Not API. Stateless.
 */
public final class StoreNames {
  /** How many hex digits of the SHA-256 name a partition: 128 bits, no collision in practice. */
  public static final int HASH_DIGITS = 32;

  private StoreNames() {}

  /** Returns the name {@code partition} has in a shared store unless readable names are asked. */
  public static String hashedUnlessOrigin(String partition) {
    int origin = PartitionNames.originLength(partition);
    if (origin == partition.length()) {
      return partition;
    }
    String hash = "#" + Sha256.hex(partition, HASH_DIGITS);
    return origin < 0 ? hash : partition.substring(0, origin) + hash;
  }
}
