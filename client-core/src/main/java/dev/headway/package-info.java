/**
 * Headway's public API: {@link dev.headway.Pacer} paces requests against the quota a server
 * advertises; {@link dev.headway.SignalParser} reads a response's rate-limit signals into a
 * {@link dev.headway.RateLimitSignal}.
 */
@NullMarked
package dev.headway;

import org.jspecify.annotations.NullMarked;
