package dev.headway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.SignalParser;
import dev.headway.dialect.Dialect;
import dev.headway.dialect.DialectContext;
import dev.headway.dialect.SignalSink;
import dev.headway.jdk.RateLimitedHttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whatever Headway's code path throws (a dialect, a cost function, a resolver, a listener, or a
 * dependency missing a class, as an old Jackson would), the request goes out and comes back as it
 * would without Headway, and every permit is given back: later calls go through at once and
 * nothing stays in flight.
 */
@org.junit.jupiter.api.parallel.Execution(
    org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD)
class ThrowingComponentsTest {
  @org.junit.jupiter.api.BeforeAll
  static void warmUp() {
    Client.warmUp();
  }

  private static final int CALLS = 4;

  /**
   * A dialect compiled against a class the application's class path lacks, as a body dialect
   * with an old Jackson: it fails on throttled responses (whose body it would read); the built-in
   * dialects still learn the quota from the 200s, so that permits are counted in flight.
   */
  static final class MissingClassDialect implements Dialect {
    @Override
    public String name() {
      return "missing-class";
    }

    @Override
    public void read(DialectContext context, SignalSink sink) {
      if (context.status() != 200) {
        throw new NoClassDefFoundError("com/fasterxml/jackson/core/StreamReadConstraints");
      }
    }
  }

  static Stream<Arguments> components() {
    Stream<Arguments> components = Stream.of(
        Arguments.of("dialect throws NoClassDefFoundError", (UnaryOperator<Pacer.Builder>)
            b -> b.signalParser(SignalParser.builder().addDialect(new MissingClassDialect())
                .build())),
        Arguments.of("cost function throws NoClassDefFoundError", (UnaryOperator<Pacer.Builder>)
            b -> b.cost(request -> {
              throw new NoClassDefFoundError("a/Missing");
            })),
        Arguments.of("resolver throws", (UnaryOperator<Pacer.Builder>)
            b -> b.partitionKeyResolver(request -> {
              throw new IllegalStateException("resolver bug");
            })),
        Arguments.of("listener throws ExceptionInInitializerError", (UnaryOperator<Pacer.Builder>)
            b -> b.listener(event -> {
              throw new ExceptionInInitializerError("listener bug");
            })));
    // installed(): every client here; no Spring in okhttp-interceptor-okhttp4-tests, which runs
    // this test on OkHttp 4.12 from src/test/java alone.
    return components.flatMap(c -> Client.installed().stream()
        .map(m -> Arguments.of(c.get()[0], c.get()[1], m)));
  }

  @ParameterizedTest(name = "{0} / {2}")
  @MethodSource("components")
  void theCallGoesOnAsWithoutHeadwayAndNoPermitIsLost(String what,
      UnaryOperator<Pacer.Builder> config, Client client) throws Throwable {
    Pacer pacer = config.apply(Pacer.builder().maxWait(Duration.ofSeconds(1))).build();
    Client.Sender sender = client.sender(pacer);
    // A 200 first (the quota is learnt: permits count in flight), then 429s and 200s in turn.
    try (RawServer server = RawServer.start(e -> e.write(e.index % 2 == 1
        ? Http.status(429).header("Content-Type", "application/json")
            .header("Retry-After", "0").body("{\"error\":\"slow down\"}")
        : Http.status(200).header("RateLimit", "\"default\";r=50;t=60")
            .header("RateLimit-Policy", "\"default\";q=100;w=60").body("ok")))) {
      for (int i = 0; i < CALLS; i++) {
        long start = System.nanoTime();
        int status = sender.send(server.uri("/c" + i), new long[1]);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(status).as(what + ", call " + i).isIn(200, 429);
        assertThat(tookMillis).as(what + ", call " + i + ": no wait for lost permits")
            .isLessThan(Client.callBound().toMillis());
      }
      assertThat(server.requests()).isBetween(CALLS, CALLS * pacer.maxAttempts());
      HostileServerSuiteTest.awaitTrue(() -> HostileServerSuiteTest.inFlight(pacer) == 0,
          Duration.ofSeconds(2));
      assertThat(HostileServerSuiteTest.inFlight(pacer)).as(what + ": units in flight")
          .isZero();
    }
  }

  /**
   * A caller that completes or cancels the future {@code sendAsync} returned ends the call: its
   * permit goes back at once, even though the server never answers.
   */
  @ParameterizedTest
  @EnumSource(Ending.class)
  void aSendAsyncFutureTheCallerEndsGivesItsPermitBack(Ending ending) throws Exception {
    Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(1)).build();
    RateLimitedHttpClient client = RateLimitedHttpClient.wrap(Client.JDK, pacer);
    // The first response teaches the quota (so that permits count in flight); the second
    // request is never answered.
    try (RawServer server = RawServer.start(e -> {
      if (e.index == 0) {
        e.write(Http.status(200).header("RateLimit", "\"default\";r=50;t=60")
            .header("RateLimit-Policy", "\"default\";q=100;w=60").body("ok"));
      } else {
        e.hang();
      }
    })) {
      client.send(HttpRequest.newBuilder(server.uri("/learn")).build(),
          HttpResponse.BodyHandlers.ofString());
      CompletableFuture<HttpResponse<String>> future = client.sendAsync(
          HttpRequest.newBuilder(server.uri("/never")).build(),
          HttpResponse.BodyHandlers.ofString());
      HostileServerSuiteTest.awaitTrue(() -> server.requests() == 2, Duration.ofSeconds(5));
      assertThat(server.requests()).isEqualTo(2);
      assertThat(HostileServerSuiteTest.inFlight(pacer)).isEqualTo(1);

      ending.end(future);

      HostileServerSuiteTest.awaitTrue(() -> HostileServerSuiteTest.inFlight(pacer) == 0,
          Duration.ofSeconds(2));
      assertThat(HostileServerSuiteTest.inFlight(pacer)).isZero();
      HostileServerSuiteTest.awaitTrue(() -> server.openConnections() == 0,
          Duration.ofSeconds(2));
      assertThat(server.openConnections()).as("the exchange was stopped").isZero();
    }
  }

  enum Ending {
    CANCEL {
      @Override
      void end(CompletableFuture<?> future) {
        future.cancel(true);
      }
    },
    COMPLETE {
      @Override
      void end(CompletableFuture<?> future) {
        future.complete(null);
      }
    },
    COMPLETE_ON_TIMEOUT {
      @Override
      void end(CompletableFuture<?> future) {
        future.completeOnTimeout(null, 1, TimeUnit.MILLISECONDS).join();
      }
    };

    abstract void end(CompletableFuture<?> future);
  }
}
