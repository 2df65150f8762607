package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.ScriptedServer;
import dev.headway.testing.ScriptedServer.Reply;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The request's timeout ({@link HttpRequest#timeout()}) of a call Headway held: counted from the
 * call while the server has answered nothing on its partition (the probes of first contact hold
 * the others back), whole after the server answered. Real server, real time for the hanging
 * server (what is measured is when each call fails, from the call); the bounds lean the way that
 * cannot flake on a loaded machine (a call never fails before its timeout; the margin after it is
 * 350 ms, against the 550 ms or more a held caller lost before: 1.5 s and later).
 */
@Timeout(60)
class HeldCallTimeoutTest {
  private static final int CALLERS = 8;
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Duration MARGIN = Duration.ofMillis(350);

  private final HttpClient delegate =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  /** When one call failed, from its call, and how. */
  private record Failure(Duration after, Throwable failure) {}

  @ParameterizedTest
  @EnumSource(Mode.class)
  void eightCallersAgainstAServerThatNeverAnswersFailAsSoonAsWithoutHeadway(Mode mode)
      throws Exception {
    // Failed before: the six callers behind the two probes went 550 ms late with the whole
    // timeout, and failed at about 1.55 s.
    try (ScriptedServer server = ScriptedServer.hanging();
        Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(30)).build()) {
      List<Failure> without = callers(mode, server, delegate);
      List<Failure> failures = callers(mode, server, RateLimitedHttpClient.wrap(delegate, pacer));
      System.out.printf("jdk %s: %d callers, request timeout %d ms; failed after (ms) without"
          + " Headway %s, with Headway %s: the last at %.2fx the timeout (%.2fx without)%n", mode,
          CALLERS, TIMEOUT.toMillis(), millis(without), millis(failures), ratio(failures),
          ratio(without));
      assertThat(server.requestCount()).isEqualTo(2 * CALLERS);
      for (Failure failure : failures) {
        assertThat(failure.failure()).isInstanceOf(HttpTimeoutException.class);
        assertThat(failure.after()).as("failed %s after its call", failure.after())
            .isGreaterThanOrEqualTo(TIMEOUT.minus(Duration.ofMillis(20)))
            .isLessThan(TIMEOUT.plus(MARGIN));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aWaitForASpentWindowTheServerAnnouncedLeavesTheTimeoutWhole(Mode mode) throws Exception {
    VirtualClock clock = VirtualClock.create();
    try (ScriptedServer server = ScriptedServer.start(n -> Optional.of(n == 1
            ? Reply.ok(Duration.ZERO,
                "RateLimit-Policy: \"default\";q=1;w=2\r\nRateLimit: \"default\";r=0;t=2\r\n")
            : Reply.ok(Duration.ofMillis(1200), ""))); // slower than 2 s less the wait
        Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
            .maxWait(Duration.ofSeconds(30)).build()) {
      HttpClient client = RateLimitedHttpClient.wrap(delegate, pacer);
      assertThat(client.send(request(server, "/a", Duration.ofSeconds(2)),
          BodyHandlers.ofString()).statusCode()).isEqualTo(200);

      Mode.Call<String> second = mode.start(client, request(server, "/b", Duration.ofSeconds(2)),
          BodyHandlers.ofString());
      URI origin = URI.create(server.url("/"));
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (pacer.quota(origin).waiting() == 0 && System.nanoTime() < end) {
        Thread.sleep(5); // real time: waiting for the caller to reach the pacer
      }
      assertThat(pacer.quota(origin).waiting()).as("the second caller waits").isEqualTo(1);
      while (server.requestCount() < 2 && System.nanoTime() < end) {
        clock.advance(Duration.ofMillis(100)); // virtual: to the window's reset, and its jitter
        Thread.sleep(5); // real time: for the caller to send
      }
      assertThat(clock.elapsed()).as("it waited for the window")
          .isGreaterThan(Duration.ofMillis(1500));

      assertThat(second.future().get(20, TimeUnit.SECONDS).statusCode())
          .as("answered within the whole 2 s").isEqualTo(200);
    }
  }

  private static HttpRequest request(ScriptedServer server, String path, Duration timeout) {
    return HttpRequest.newBuilder(URI.create(server.url(path))).timeout(timeout).build();
  }

  /** Runs the callers through {@code client}; returns how each failed. */
  private static List<Failure> callers(Mode mode, ScriptedServer server, HttpClient client)
      throws Exception {
    List<CompletableFuture<Failure>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      long start = System.nanoTime();
      Mode.Call<Void> call = mode.start(client, request(server, "/items/" + i, TIMEOUT),
          BodyHandlers.discarding());
      calls.add(call.future().handle((HttpResponse<Void> response, Throwable failure) -> {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException
            || failure instanceof ExecutionException ? failure.getCause() : failure;
        return new Failure(Duration.ofNanos(System.nanoTime() - start),
            cause != null ? cause : new AssertionError("answered: " + response.statusCode()));
      }));
    }
    List<Failure> failures = new ArrayList<>();
    for (CompletableFuture<Failure> call : calls) {
      failures.add(call.get(20, TimeUnit.SECONDS));
    }
    return failures;
  }

  private static List<Long> millis(List<Failure> failures) {
    return failures.stream().map(f -> f.after().toMillis()).sorted().toList();
  }

  private static double ratio(List<Failure> failures) {
    return failures.stream().mapToLong(f -> f.after().toNanos()).max().orElseThrow()
        / (double) TIMEOUT.toNanos();
  }
}
