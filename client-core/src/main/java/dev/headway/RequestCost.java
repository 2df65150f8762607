package dev.headway;

/**
 * How many quota units a request costs: 1 by default; the request body's bytes for a
 * {@code content-bytes} quota; the expected tokens for a language-model API.
 *
 * <p>Implementations must be thread-safe and fast: they run before every request.
 */
@FunctionalInterface
public interface RequestCost {
  /** Returns the request's cost in quota units; must not be negative. */
  long cost(RequestInfo request);

  /** Returns the default cost function: every request costs one unit. */
  static RequestCost oneUnit() {
    return request -> 1;
  }
}
