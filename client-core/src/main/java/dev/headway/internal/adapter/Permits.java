package dev.headway.internal.adapter;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Hands responses back to permits the way every adapter must: never failing the call, and
 * giving every permit back whatever Headway's own code (a dialect, a listener, a cost function, a
 * missing class of a dependency) throws.
 */
public final class Permits {
  /** The logger of the adapters' shared code. */
  static final String LOGGER = "dev.headway.adapter";

  private Permits() {}

  /**
   * Returns whether {@code failure}, thrown by Headway's code or by user code it calls (a
   * dialect, a resolver, a cost function, a listener), must be contained by the adapter: the call
   * then goes on as it would without Headway. That is every {@link RuntimeException} and every
   * {@link LinkageError} (a dependency of another version than Headway was built with, such as a
   * {@link NoClassDefFoundError}); not a {@link VirtualMachineError} (out of memory) nor an
   * {@link java.io.IOException}, which are the caller's to see.
   */
  public static boolean contained(Throwable failure) {
    return failure instanceof RuntimeException || failure instanceof LinkageError;
  }

  /**
   * Returns the failure of a call whose permit could not be had because {@code pacer} is closed,
   * or {@code null} if {@code failure} has another cause: a closed pacer fails its calls rather
   * than letting them go out unpaced (it knows nothing any more, and an unpaced call may draw the
   * 429s it exists to prevent).
   */
  public static @Nullable IOException closed(Pacer pacer, Throwable failure) {
    if (!(failure instanceof IllegalStateException) || !pacer.isClosed()) {
      return null;
    }
    return new IOException("Headway: " + failure.getMessage()
        + "; a call through it is not sent (give the client an open Pacer)", failure);
  }

  /**
   * Completes {@code permit} with a response; if that throws (a bug in a dialect, a listener, a
   * {@link LinkageError} from a dependency), releases the permit instead and returns
   * {@link RateLimitSignal#none}: a rate-limit signal never breaks a call that would otherwise
   * succeed.
   *
   * @param body a prefix of the body for the parser's body rule, or {@code null}
   */
  public static RateLimitSignal complete(Permit permit, int status, HttpFields headers,
      byte @Nullable [] body) {
    try {
      return permit.complete(status, headers, body);
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(LOGGER, "completing a permit with the response", e);
      release(permit);
      return RateLimitSignal.none(status);
    }
  }

  /**
   * Releases {@code permit} (nothing was sent, or the exchange failed); a failure of the release
   * itself (a throwing listener) is swallowed: the caller is already on its way out.
   */
  public static void release(@Nullable Permit permit) {
    if (permit == null) {
      return;
    }
    try {
      permit.release();
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(LOGGER, "releasing a permit", e);
      // Nothing more an adapter can do: the pacer has the permit back or never will.
    }
  }
}
