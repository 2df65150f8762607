package dev.headway.jdk;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of one attempt of a call: the response, and, if the response was throttled and will
 * be retried, the delay before the retry and the throttled response kept until the retry's permit
 * is in hand (its body then went to no caller yet).
 */
record Outcome<T>(HttpResponse<T> response, Optional<Duration> retryDelay,
    @Nullable HoldingSubscriber<T> kept) {
  Outcome {
    Objects.requireNonNull(response, "response must not be null");
    Objects.requireNonNull(retryDelay, "retryDelay must not be null");
    if (retryDelay.isPresent() != (kept != null)) {
      throw new IllegalArgumentException("a retried response must be kept, and only it");
    }
  }

  /** Returns a final attempt: {@code response} goes to the caller. */
  static <T> Outcome<T> last(HttpResponse<T> response) {
    return new Outcome<>(response, Optional.empty(), null);
  }

  boolean retry() {
    return retryDelay.isPresent();
  }

  /**
   * Gives the kept throttled response to the caller after all (the retry could not get its
   * permit): the caller's body handler receives the whole body.
   */
  CompletableFuture<HttpResponse<T>> deliver() {
    HoldingSubscriber<T> held = Objects.requireNonNull(kept, "kept must not be null");
    return held.deliver().thenApply(body -> new DeliveredResponse<>(response, body));
  }

  /** Drops the kept throttled response, if any and not delivered: the retry is going out. */
  void discard() {
    if (kept != null) {
      kept.discard();
    }
  }
}
