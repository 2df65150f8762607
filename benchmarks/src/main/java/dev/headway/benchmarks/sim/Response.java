package dev.headway.benchmarks.sim;

import dev.headway.HttpFields;

/**
 * A simulated response as the client receives it.
 *
 * @param status 200 or 429
 * @param headers the server's header fields
 * @param sentNanos when the request left the client
 */
public record Response(int status, HttpFields headers, long sentNanos) {}
