package dev.headway.jdk;

import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether a request's body can be sent again, so that a throttled request may be retried.
 *
 * <p>The rule is an allow-list: a request is replayable when it has no body, or when its body
 * comes from one of the JDK's publishers that produce the same bytes on every subscription —
 * {@code BodyPublishers.noBody}, {@code ofString}, {@code ofByteArray}, {@code ofByteArrays}
 * (the JDK re-iterates the {@code Iterable} on every attempt) and {@code ofFile}. Everything else
 * is treated as one-shot and never retried: {@code ofInputStream} (its supplier often hands out
 * the same, already consumed stream), {@code fromPublisher}, and any publisher of the
 * application's own, whose behaviour on a second subscription Headway cannot know.
 */
final class Replay {
  private static final Set<String> REPLAYABLE = Set.of(
      "jdk.internal.net.http.RequestPublishers$EmptyPublisher",
      "jdk.internal.net.http.RequestPublishers$StringPublisher",
      "jdk.internal.net.http.RequestPublishers$ByteArrayPublisher",
      "jdk.internal.net.http.RequestPublishers$IterablePublisher",
      "jdk.internal.net.http.RequestPublishers$FilePublisher");

  private Replay() {}

  static boolean isReplayable(HttpRequest request) {
    Optional<BodyPublisher> publisher = request.bodyPublisher();
    return publisher.isEmpty() || isReplayable(publisher.get());
  }

  static boolean isReplayable(BodyPublisher publisher) {
    return REPLAYABLE.contains(publisher.getClass().getName());
  }
}
