/**
 * Headway for Spring's {@code WebClient}:
 * {@link dev.headway.spring.webflux.RateLimitExchangeFilterFunction}.
 *
 * <p>Map of the package:
 *
 * <ul>
 *   <li>{@code RateLimitExchangeFilterFunction}: the public filter and its builder.
 *   <li>{@code WebClientExchange}: one request as the core's paced exchange sees it (the async
 *       client SPI): sends, reads signals, keeps and drops throttled responses.
 *   <li>{@code RecordedBody}: the first attempt's body and headers as written, sent again by a
 *       retry.
 *   <li>{@code ReadAhead}: a bounded, non-blocking read-ahead of a response body for hints; the
 *       caller still gets the whole body.
 * </ul>
 */
@NullMarked
package dev.headway.spring.webflux;

import org.jspecify.annotations.NullMarked;
