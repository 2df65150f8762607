/**
 * Headway for Apache HttpClient 5's classic client:
 * {@link dev.headway.httpclient5.RateLimitExecChainHandler}.
 */
@NullMarked
package dev.headway.httpclient5;

import org.jspecify.annotations.NullMarked;
