package dev.headway.jdk;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of one attempt of a call: the response, and the delay before a retry if the
 * response was throttled and will be retried (its body then went to no caller).
 */
record Attempt<T>(HttpResponse<T> response, Optional<Duration> retryDelay) {
  Attempt {
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(retryDelay, "retryDelay");
  }

  boolean retry() {
    return retryDelay.isPresent();
  }
}
