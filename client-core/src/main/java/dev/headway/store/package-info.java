/**
 * Where quota state lives when several processes share one quota: the {@link
 * dev.headway.store.QuotaStore} contract, the values it exchanges, and {@link
 * dev.headway.store.InMemoryQuotaStore}, the implementation for pacers of one JVM and for tests.
 * The {@code redis-store} module provides a store shared through Redis.
 */
@NullMarked
package dev.headway.store;

import org.jspecify.annotations.NullMarked;
