/**
 * {@link dev.headway.redis.RedisQuotaStore}: a {@link dev.headway.store.QuotaStore} shared by
 * every instance of a fleet through Redis.
 */
@NullMarked
package dev.headway.redis;

import org.jspecify.annotations.NullMarked;
