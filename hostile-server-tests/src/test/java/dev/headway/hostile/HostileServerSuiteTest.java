package dev.headway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.hostile.Cases.Case;
import dev.headway.hostile.Client.Outcome;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every way the server misbehaves ({@link Cases}), through every way a user sends
 * ({@link Client}). For each: no call lasts longer than {@code maxWait} plus the client's own
 * timeouts; only {@link IOException}s reach the caller, unless the client without Headway throws
 * the same (OkHttp's own {@code Retry-After} parsing throws {@code NumberFormatException} for a
 * 503 with a 40-digit value); requests sent per call stay within {@code maxAttempts}; once the
 * server behaves, a call succeeds within one window; against a server that admits every request
 * (whatever it says of its reset), every call succeeds; no permit stays in flight and no connection
 * stays open (but those java.net.http itself leaves after a response it cannot parse).
 *
 * <p>For Spring's {@code RestClient}, the failure checked is the {@link IOException} a
 * {@code ResourceAccessException} carries (see {@code SpringRestClient}).
 *
 * <p>Real sockets, real time: the waits here are network timeouts, which no virtual clock drives.
 * The bounds are generous (see {@link Client#callBound()}) but a call held past them by Headway,
 * like a hint read that waits for a trickling body, fails.
 */
class HostileServerSuiteTest {
  @org.junit.jupiter.api.BeforeAll
  static void warmUp() {
    Client.warmUp();
  }

  /** One window: how soon a call must succeed once the server behaves. */
  private static final Duration RECOVERY = Client.MAX_WAIT.plus(Duration.ofSeconds(2));
  private static final Duration SETTLE = Duration.ofSeconds(3);
  /** Partitions a server's {@code pk} may split off one origin (docs/pacer.md). */
  static final int MAX_PK_PARTITIONS = 4;
  /** Policies one partition may hold (docs/pacer.md). */
  static final int MAX_POLICIES = 16;

  /**
   * The cases and clients, all unless {@code -Dhostile.cases=<text>} names the cases to run (those
   * whose name contains the text).
   */
  static Stream<Arguments> adapterCases() {
    String only = System.getProperty("hostile.cases", "");
    return Cases.all().stream().filter(c -> c.pending() == null && c.name().contains(only))
        .flatMap(c -> Stream.of(Client.values()).map(m -> Arguments.of(c, m)));
  }

  @ParameterizedTest(name = "{0} / {1}")
  @MethodSource("adapterCases")
  void keepsEveryPromise(Case hostile, Client client) throws Exception {
    run(hostile, client);
  }

  static void run(Case hostile, Client client) throws Exception {
    Pacer pacer = Pacer.builder().maxWait(Client.MAX_WAIT).maxAttempts(Client.MAX_ATTEMPTS)
        .build();
    Client.Sender sender = client.sender(pacer);
    try (RawServer server = RawServer.start(hostile.script())) {
      Duration bound = Client.callBound();
      List<Outcome> outcomes = new java.util.ArrayList<>();
      int protocolErrors = 0;
      for (int i = 0; i < hostile.calls(); i++) {
        Outcome outcome = call(sender, server, server.uri("/hostile?call=" + i + "&"));
        outcomes.add(outcome);
        String what = hostile + " / " + client + ", call " + i + ": " + outcome;
        assertThat(outcome.took()).as(what).isLessThanOrEqualTo(bound);
        if (outcome.failure() != null && !(outcome.failure() instanceof IOException)) {
          // Only what the client throws without Headway too may be something else.
          Throwable plain = client.plainFailure(hostile.script());
          assertThat(plain).as(what + "; without Headway: " + plain).isNotNull();
          assertThat(plain.getClass()).as(what + "; without Headway: " + plain)
              .isEqualTo(outcome.failure().getClass());
        }
        if (hostile.admits()) {
          // Not refused by Headway (a client's own timeout on a loaded machine is not ours).
          if (outcome.failure() != null) {
            assertThat(outcome.failure()).as(what + ": the server admits every request")
                .isNotInstanceOf(dev.headway.RateLimitedException.class);
          } else {
            assertThat(outcome.status()).as(what).isEqualTo(200);
          }
        }
        if (outcome.failure() != null) {
          if (outcome.failure() instanceof java.net.ProtocolException) {
            protocolErrors++;
          }
        }
      }

      server.script(e -> e.write(Http.status(200).body("ok")));
      URI uri = server.uri("/recovery");
      long deadline = System.nanoTime() + RECOVERY.toNanos();
      Outcome last;
      int tries = 0;
      while (true) {
        last = call(sender, server, uri);
        tries++;
        if (last.failure() == null && last.status() == 200) {
          break;
        }
        assertThat(System.nanoTime()).as(hostile + " / " + client
            + ": no success within one window once the server behaves; last " + last
            + " after " + tries + " tries").isLessThan(deadline);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // real server: real time
      }

      assertBounded(pacer, hostile + " / " + client);
      awaitTrue(() -> inFlight(pacer) == 0, SETTLE);
      assertThat(inFlight(pacer)).as(hostile + " / " + client + ": units in flight")
          .isZero();
      // Requests are counted by the call that made them, once the server has read them all: a
      // server thread can lag behind the client under load.
      for (int i = 0; i < hostile.calls(); i++) {
        assertThat(server.requestsWith("call=" + i + "&")).as(hostile + " / " + client
            + ", call " + i + ": requests sent; " + outcomes.get(i))
            .isLessThanOrEqualTo(Client.MAX_ATTEMPTS);
      }
      // java.net.http itself leaves a connection open after a response it cannot parse
      // (ProtocolException), with or without Headway: those are the JDK's, not Headway's. The
      // Spring client sends through java.net.http too (JdkClientHttpRequestFactory).
      int jdkOwn = client.overJavaNetHttp() ? protocolErrors : 0;
      awaitTrue(() -> server.openConnections() <= jdkOwn, SETTLE);
      assertThat(server.openConnections()).as(hostile + " / " + client
          + ": connections the client still holds").isLessThanOrEqualTo(jdkOwn);
    }
  }

  private static Outcome call(Client.Sender sender, RawServer server, URI uri) {
    int before = server.requests();
    long start = System.nanoTime();
    int status = -1;
    Throwable failure = null;
    long[] respondedAt = {0};
    try {
      status = sender.send(uri, respondedAt);
    } catch (Throwable t) {
      failure = t;
    }
    long end = respondedAt[0] != 0 ? respondedAt[0] : System.nanoTime();
    Duration took = Duration.ofNanos(end - start);
    return new Outcome(status, failure, took, server.requests() - before);
  }

  /**
   * The pacer's state after the case: one origin's partition (the server's), at most 4
   * partitions split off it by a server's {@code pk}, at most 16 policies in each.
   */
  static void assertBounded(Pacer pacer, String what) {
    assertThat(pacer.partitionCount()).as(what + ": partitions").isLessThanOrEqualTo(1);
    List<QuotaSnapshot> partitions = pacer.partitions();
    assertThat(partitions).as(what + ": partitions with the server's pk partitions")
        .hasSizeLessThanOrEqualTo(1 + MAX_PK_PARTITIONS);
    for (QuotaSnapshot partition : partitions) {
      assertThat(partition.policies()).as(what + ": policies of " + partition.partition())
          .hasSizeLessThanOrEqualTo(MAX_POLICIES);
    }
  }

  static long inFlight(Pacer pacer) {
    long total = 0;
    for (QuotaSnapshot partition : pacer.partitions()) {
      for (PolicySnapshot policy : partition.policies()) {
        total += policy.inFlight();
      }
    }
    return total;
  }

  static void awaitTrue(BooleanSupplier condition, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }
}
