package dev.headway;

import org.jspecify.annotations.Nullable;

/**
 * The right to send one request, from {@link Pacer#acquire}. It holds its cost "in flight" until
 * the response is handed back with {@link #complete}, or until {@link #release} says none will
 * come; so concurrent callers never spend the same last unit twice.
 *
 * <p>Exactly one of {@code complete} and {@code release} takes effect; later calls do nothing.
 * Thread-safe.
 */
public interface Permit extends AutoCloseable {
  /**
   * Returns the partition the request was counted against.
   *
   * @return the partition key, as the pacer's {@link PartitionKeyResolver} spells it
   */
  String partition();

  /**
   * Returns the request's cost in quota units.
   *
   * <p>With the default {@link RequestCost} (one unit), a request of a route whose responses
   * showed that it costs more (a stated cost such as the draft proposal's {@code c}, or a
   * remaining count that drops by more than one per request) costs what they showed.
   *
   * @return the cost, as the pacer's {@link RequestCost} priced the request, or as its route's
   *     responses showed
   */
  long cost();

  /**
   * Hands the response back: parses its signals, updates the partition's quota state, and
   * releases the permit.
   *
   * @param status the response's HTTP status code
   * @param headers the response's header fields
   * @param body a prefix of the body (at most {@link SignalParser#MAX_BODY_BYTES} are read), or
   *     {@code null}; read only for JSON 429/503 responses
   * @return what the response said
   */
  RateLimitSignal complete(int status, HttpFields headers, byte @Nullable [] body);

  /**
   * Hands back a response whose signal the caller already parsed.
   *
   * @param signal what the response said, as {@link SignalParser#parse} read it
   */
  void complete(RateLimitSignal signal);

  /** Releases the permit without a response: the request failed, or was never sent. */
  void release();

  /** Same as {@link #release()} unless the permit was completed. */
  @Override
  void close();
}
