package dev.headway;

/**
 * How many quota units a request costs: 1 by default; the request body's bytes for a
 * {@code content-bytes} quota; the expected tokens for a language-model API.
 *
 * <p>Implementations must be thread-safe and fast: they run before every request.
 */
@FunctionalInterface
public interface RequestCost {
  /**
   * Returns the request's cost in quota units. A negative cost counts as 0.
   *
   * @param request the request about to be sent
   * @return the cost; a negative value counts as 0
   */
  long cost(RequestInfo request);

  /**
   * Returns the request's cost in {@code unit}s. The default: the request body's length for
   * {@link QuotaUnit#CONTENT_BYTES} (0 when unknown), 1 for
   * {@link QuotaUnit#CONCURRENT_REQUESTS}, and {@link #cost(RequestInfo)} for requests and
   * tokens. Override it to price units differently (e.g. tokens for a language-model API, while
   * a request still costs one request).
   *
   * @param request the request about to be sent
   * @param unit the unit of the quota the cost is counted against
   * @return the cost, not negative (negative values count as 0)
   */
  default long cost(RequestInfo request, QuotaUnit unit) {
    switch (unit) {
      case CONTENT_BYTES:
        return request.contentLength().orElse(0);
      case CONCURRENT_REQUESTS:
        return 1;
      default:
        return cost(request);
    }
  }

  /**
   * Returns the default cost function: every request costs one unit.
   *
   * @return the shared one-unit cost function
   */
  static RequestCost oneUnit() {
    return OneUnitCost.INSTANCE;
  }
}
