package dev.headway.benchmarks.sim;

/**
 * What a {@link ServerModel} decided for one request, and the quota state it reports.
 *
 * @param allowed whether the request was admitted (200) or throttled (429)
 * @param remaining the units left after this request, as the server reports them
 * @param resetNanos the time until the quota resets, as the server reports it
 * @param retryAfterNanos for a throttled request, the time until a request would be admitted
 */
public record Decision(boolean allowed, long remaining, long resetNanos, long retryAfterNanos) {}
