/**
 * Headway for Feign: {@link dev.headway.feign.RateLimitCapability}, added to a client with
 * {@code Feign.builder().addCapability(...)}.
 */
@NullMarked
package dev.headway.feign;

import org.jspecify.annotations.NullMarked;
