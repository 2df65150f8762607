/**
 * Headway for Apache HttpClient 5: {@link dev.headway.httpclient5.RateLimitExecChainHandler} for
 * the classic client, {@link dev.headway.httpclient5.RateLimitAsyncExecChainHandler} for the
 * asynchronous one.
 *
 * <p>The map:
 *
 * <ul>
 *   <li>Classic: {@code RateLimitExecChainHandler} (the handler), {@code HttpClient5Exchange}
 *       (one request as the core's paced exchange sees it), {@code TappedEntity} (a body read
 *       ahead for hints, kept while waiting to retry).
 *   <li>Asynchronous: {@code RateLimitAsyncExecChainHandler} (the handler),
 *       {@code AsyncHttpClient5Exchange} (one request as the core's asynchronous paced exchange
 *       sees it), {@code AttemptCallback} (one attempt: decides, forwards to the caller or holds
 *       the response for a retry), {@code CallCancellable} (what cancelling the caller's future
 *       cancels), {@code ClientCalls} (the calls of one client, ended when it closes).
 *   <li>Both: {@code ThrottledLeftToHeadway} (HttpClient's retry strategy with Headway's
 *       decisions left out), {@code RequestSnapshot} (a request as it reached the handler, to
 *       send it again).
 * </ul>
 */
@NullMarked
package dev.headway.httpclient5;

import org.jspecify.annotations.NullMarked;
