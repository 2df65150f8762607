package dev.headway.internal.adapter;

import dev.headway.HttpFields;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import org.jspecify.annotations.Nullable;

/** Hands responses back to permits the way every adapter must: never failing the call. */
public final class Permits {
  /** The logger of the adapters' shared code. */
  static final String LOGGER = "dev.headway.adapter";

  private Permits() {}

  /**
   * Completes {@code permit} with a response; if that throws (a bug in a dialect, a listener),
   * releases the permit instead and returns {@link RateLimitSignal#none}: a rate-limit signal
   * never breaks a call that would otherwise succeed.
   *
   * @param body a prefix of the body for the parser's body rule, or {@code null}
   */
  public static RateLimitSignal complete(Permit permit, int status, HttpFields headers,
      byte @Nullable [] body) {
    try {
      return permit.complete(status, headers, body);
    } catch (RuntimeException e) {
      Swallowed.log(LOGGER, "completing a permit with the response", e);
      permit.release();
      return RateLimitSignal.none(status);
    }
  }
}
