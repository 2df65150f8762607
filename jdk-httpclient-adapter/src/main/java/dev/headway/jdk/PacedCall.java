package dev.headway.jdk;

import dev.headway.Pacer;
import dev.headway.RequestInfo;
import dev.headway.internal.adapter.CallBudget;
import dev.headway.internal.adapter.RequestDescriptions;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.util.Optional;

/**
 * What stays the same across the attempts of one call: the request as the {@link Pacer} sees it
 * (by the adapters' shared rule, {@link RequestDescriptions}), whether its body can be replayed,
 * and when the call's one wait budget ({@link CallBudget}: permits and retry delays together)
 * started. Immutable and thread-safe.
 */
record PacedCall(Pacer pacer, HttpRequest request, RequestInfo info, boolean replayable,
    long startNanos) {

  /** Starts a call of {@code request}: its budget of the pacer's {@code maxWait} starts now. */
  static PacedCall start(Pacer pacer, HttpRequest request) {
    return new PacedCall(pacer, request, describe(request), Replay.isReplayable(request),
        pacer.ticker().read());
  }

  /**
   * Returns the call's wait budget: the pacer's {@code maxWait} from {@link #startNanos}. Made
   * when asked (a retry, an asynchronous wait): most calls never need it.
   */
  CallBudget budget() {
    return CallBudget.startedAt(pacer.ticker(), startNanos, pacer.maxWait());
  }

  static RequestInfo describe(HttpRequest request) {
    Optional<BodyPublisher> publisher = request.bodyPublisher();
    return RequestDescriptions.describe(request.method(), request.uri(),
        JdkFields.of(request.headers()), publisher.isPresent(),
        publisher.map(BodyPublisher::contentLength).orElse(0L));
  }
}
