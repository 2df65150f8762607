/**
 * Test support for quota stores: {@link dev.headway.testing.store.QuotaStoreContractTest}, the
 * behaviour every {@link dev.headway.store.QuotaStore} owes (run it against your own store), and
 * {@link dev.headway.testing.store.StoreFaults}, which takes stores down and counts their calls.
 */
@NullMarked
package dev.headway.testing.store;

import org.jspecify.annotations.NullMarked;
