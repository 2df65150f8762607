/**
 * {@link dev.headway.redis.RedisQuotaStore}: a {@link dev.headway.store.QuotaStore} shared by
 * every instance of a fleet through Redis: one node, a Sentinel-managed primary, or a Redis
 * Cluster.
 */
@NullMarked
package dev.headway.redis;

import org.jspecify.annotations.NullMarked;
