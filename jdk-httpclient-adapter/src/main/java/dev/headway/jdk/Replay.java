package dev.headway.jdk;

import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether a request's body can be sent again, so that a throttled request may be retried.
 *
 * <p>The rule is an allow-list: a request is replayable when it has no body, when its body comes
 * from one of the JDK's publishers that produce the same bytes on every subscription —
 * {@code BodyPublishers.noBody}, {@code ofString}, {@code ofByteArray} and {@code ofFile} — or
 * when the application marked it with {@link RateLimitedHttpClient#replayable}. Everything else
 * is treated as one-shot and never retried: {@code ofInputStream} (its supplier often hands out
 * the same, already consumed stream), {@code ofByteArrays} (its {@code Iterable} may hand out the
 * same iterator twice, and a retry would send an empty body), {@code fromPublisher}, and any
 * publisher of the application's own, whose behaviour on a second subscription Headway cannot
 * know.
 *
 * <p>The JDK's publishers are recognised by their class names, which are not API: a JDK that
 * renames them makes those bodies one-shot (not retried, never sent wrong). {@code ReplayTest}
 * pins the names on the JDK the build runs on, so that such a change is seen.
 */
final class Replay {
  static final Set<String> JDK_REPLAYABLE = Set.of(
      "jdk.internal.net.http.RequestPublishers$EmptyPublisher",
      "jdk.internal.net.http.RequestPublishers$StringPublisher",
      "jdk.internal.net.http.RequestPublishers$ByteArrayPublisher",
      "jdk.internal.net.http.RequestPublishers$FilePublisher");

  private Replay() {}

  static boolean isReplayable(HttpRequest request) {
    Optional<BodyPublisher> publisher = request.bodyPublisher();
    return publisher.isEmpty() || isReplayable(publisher.get());
  }

  static boolean isReplayable(BodyPublisher publisher) {
    return publisher instanceof ReplayablePublisher
        || JDK_REPLAYABLE.contains(publisher.getClass().getName());
  }
}
