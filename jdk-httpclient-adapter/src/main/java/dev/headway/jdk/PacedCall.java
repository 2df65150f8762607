package dev.headway.jdk;

import dev.headway.HttpFields;
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
 * and the call's one wait budget ({@link CallBudget}: permits and retry delays together).
 * Immutable and thread-safe.
 */
record PacedCall(Pacer pacer, HttpRequest request, RequestInfo info, boolean replayable,
    CallBudget budget) {

  /** Starts a call of {@code request}: its budget of the pacer's {@code maxWait} starts now. */
  static PacedCall start(Pacer pacer, HttpRequest request) {
    return new PacedCall(pacer, request, describe(request), Replay.isReplayable(request),
        CallBudget.start(pacer.ticker(), pacer.maxWait()));
  }

  static RequestInfo describe(HttpRequest request) {
    Optional<BodyPublisher> publisher = request.bodyPublisher();
    return RequestDescriptions.describe(request.method(), request.uri(),
        HttpFields.of(request.headers().map()), publisher.isPresent(),
        publisher.map(BodyPublisher::contentLength).orElse(0L));
  }
}
