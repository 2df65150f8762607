package dev.headway.pacer;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs callers through a pacer against a model of a server, in virtual time, one millisecond at a
 * time: each caller takes a permit ({@code tryAcquire}) as soon as it may, its request reaches the
 * server one way later, and the answer comes back one way after that and completes the permit.
 */
final class ModelServerLoop {
  /** A server model: answers the request that arrives at {@code nowNanos}. */
  interface Server {
    Response handle(long nowNanos);
  }

  /** An answer: its status, and how it completes the request's permit. */
  record Response(int status, Consumer<Permit> complete) {}

  /** What the server answered: admitted, 429s, and 429s that arrived after {@code lateFrom}. */
  record Counts(long admitted, long throttled, long throttledLate) {}

  private record InFlight(Permit permit, long arrivesAt) {}

  private record Back(Permit permit, Response response, long backAt) {}

  private ModelServerLoop() {}

  /**
   * Runs {@code callers} callers of {@code request} through {@code pacer} on {@code clock} until
   * {@code endNanos}, each way of a round trip {@code oneWayNanos}; counts 429s that arrived after
   * {@code lateFromNanos} apart.
   */
  static Counts run(Pacer pacer, VirtualClock clock, RequestInfo request, int callers,
      long oneWayNanos, long endNanos, long lateFromNanos, Server server) {
    Deque<InFlight> out = new ArrayDeque<>();
    Deque<Back> back = new ArrayDeque<>();
    int busy = 0;
    long admitted = 0;
    long throttled = 0;
    long throttledLate = 0;
    while (clock.read() < endNanos) {
      long now = clock.read();
      while (!out.isEmpty() && out.peekFirst().arrivesAt() <= now) {
        InFlight sent = out.pollFirst();
        Response response = server.handle(now);
        if (response.status() == 429) {
          throttled++;
          if (now > lateFromNanos) {
            throttledLate++;
          }
        } else {
          admitted++;
        }
        back.addLast(new Back(sent.permit(), response, now + oneWayNanos));
      }
      while (!back.isEmpty() && back.peekFirst().backAt() <= now) {
        Back answer = back.pollFirst();
        answer.response().complete().accept(answer.permit());
        busy--;
      }
      while (busy < callers) {
        Optional<Permit> permit = pacer.tryAcquire(request);
        if (permit.isEmpty()) {
          break;
        }
        busy++;
        out.addLast(new InFlight(permit.get(), now + oneWayNanos));
      }
      clock.advance(Duration.ofMillis(1));
    }
    return new Counts(admitted, throttled, throttledLate);
  }
}
