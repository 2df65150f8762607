package dev.headway.pacer;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.function.LongUnaryOperator;
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
    return fixedOrder(pacer, clock, request, callers, oneWayNanos, endNanos, lateFromNanos,
        server);
  }

  /**
   * As {@link #run(Pacer, VirtualClock, RequestInfo, int, long, long, long, Server)}, each way of
   * each request taking {@code oneWay.applyAsLong(nowNanos)} from the instant it leaves: requests
   * and answers may overtake one another, as on a loaded machine.
   */
  static Counts run(Pacer pacer, VirtualClock clock, RequestInfo request, int callers,
      LongUnaryOperator oneWay, long endNanos, long lateFromNanos, Server server) {
    // Ordered by time, then by when queued (a PriorityQueue alone is not first-in first-out).
    PriorityQueue<long[]> out = new PriorityQueue<>(ModelServerLoop::byTimeThenSequence);
    PriorityQueue<long[]> back = new PriorityQueue<>(ModelServerLoop::byTimeThenSequence);
    Map<Long, Permit> permits = new HashMap<>();
    Map<Long, Response> responses = new HashMap<>();
    long sequence = 0;
    int busy = 0;
    long admitted = 0;
    long throttled = 0;
    long throttledLate = 0;
    while (clock.read() < endNanos) {
      long now = clock.read();
      while (!out.isEmpty() && out.peek()[0] <= now) {
        long id = out.poll()[1];
        Response response = server.handle(now);
        responses.put(id, response);
        if (response.status() == 429) {
          throttled++;
          if (now > lateFromNanos) {
            throttledLate++;
          }
        } else {
          admitted++;
        }
        back.add(new long[] {now + oneWay.applyAsLong(now), id});
      }
      while (!back.isEmpty() && back.peek()[0] <= now) {
        long id = back.poll()[1];
        responses.remove(id).complete().accept(permits.remove(id));
        busy--;
      }
      while (busy < callers) {
        Optional<Permit> permit = pacer.tryAcquire(request);
        if (permit.isEmpty()) {
          break;
        }
        busy++;
        permits.put(sequence, permit.get());
        out.add(new long[] {now + oneWay.applyAsLong(now), sequence++});
      }
      clock.advance(Duration.ofMillis(1));
    }
    return new Counts(admitted, throttled, throttledLate);
  }

  private static int byTimeThenSequence(long[] a, long[] b) {
    return a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]);
  }

  private static Counts fixedOrder(Pacer pacer, VirtualClock clock, RequestInfo request,
      int callers, long oneWayNanos, long endNanos, long lateFromNanos, Server server) {
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
