package dev.headway.jdk;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.RequestInfo;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * What stays the same across the attempts of one call: the request as the {@link Pacer} sees it,
 * whether its body can be replayed, and the call's deadline. Every wait of the call — for a
 * permit or before a retry — comes out of one budget of the pacer's {@code maxWait}, measured on
 * the pacer's ticker, so a hostile server cannot hold a call longer than that in total. Immutable
 * and thread-safe.
 */
final class CallBudget {
  /** The smallest wait budget handed to the pacer: "only if no wait is needed". */
  private static final Duration NO_WAIT = Duration.ofNanos(1);

  final Pacer pacer;
  final HttpRequest request;
  final RequestInfo info;
  final boolean replayable;
  private final long deadlineNanos;

  CallBudget(Pacer pacer, HttpRequest request) {
    this.pacer = pacer;
    this.request = request;
    this.info = describe(request);
    this.replayable = Replay.isReplayable(request);
    this.deadlineNanos = saturatedAdd(pacer.ticker().read(), pacer.maxWait().toNanos());
  }

  /** Returns what is left of the call's wait budget; at least one nanosecond. */
  Duration remaining() {
    long left = deadlineNanos - pacer.ticker().read();
    return left <= 0 ? NO_WAIT : Duration.ofNanos(left);
  }

  /** Returns whether a retry after {@code delay} still fits the call's budget. */
  boolean fits(Duration delay) {
    return !delay.isNegative() && delay.toNanos() < deadlineNanos - pacer.ticker().read();
  }

  static RequestInfo describe(HttpRequest request) {
    OptionalLong length = request.bodyPublisher()
        .map(p -> p.contentLength() >= 0 ? OptionalLong.of(p.contentLength())
            : OptionalLong.empty())
        .orElse(OptionalLong.of(0));
    return new RequestInfo(request.method(), request.uri(),
        HttpFields.of(request.headers().map()), length);
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
