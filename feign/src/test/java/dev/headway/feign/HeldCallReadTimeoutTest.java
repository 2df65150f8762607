package dev.headway.feign;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.ScriptedServer;
import dev.headway.testing.ScriptedServer.Reply;
import dev.headway.testing.VirtualClock;
import feign.Feign;
import feign.Param;
import feign.Request;
import feign.RequestLine;
import feign.RetryableException;
import feign.Retryer;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The read timeout ({@link Request.Options}) of a call Headway held: counted from the call while
 * the server has answered nothing on its partition (the probes of first contact hold the others
 * back), whole after the server answered. Feign's default client, a real server, real time for
 * the hanging server (what is measured is when each call fails, from the call); the bounds lean
 * the way that cannot flake on a loaded machine (a call never fails before its timeout; the
 * margin after it is 350 ms, against the 550 ms or more a held caller lost before: 1.5 s and
 * later).
 */
@Timeout(60)
class HeldCallReadTimeoutTest {
  private static final int CALLERS = 8;
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Duration MARGIN = Duration.ofMillis(350);

  interface Api {
    @RequestLine("GET /items/{id}")
    String item(@Param("id") String id);
  }

  /** When one call failed, from its call, and how. */
  private record Failure(Duration after, Throwable failure) {}

  private static Api api(String url, Duration readTimeout, Pacer pacer) {
    Feign.Builder builder = Feign.builder()
        .options(new Request.Options(1, TimeUnit.SECONDS, readTimeout.toMillis(),
            TimeUnit.MILLISECONDS, true))
        .retryer(Retryer.NEVER_RETRY); // each call fails once, as it times out
    if (pacer != null) {
      builder.addCapability(RateLimitCapability.create(pacer));
    }
    return builder.target(Api.class, url);
  }

  @Test
  void eightCallersAgainstAServerThatNeverAnswersFailAsSoonAsWithoutHeadway() throws Exception {
    // Failed before: the six callers behind the two probes went 550 ms late with the whole read
    // timeout, and failed at 1.5 s and later.
    try (ScriptedServer server = ScriptedServer.hanging();
        Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(30)).build()) {
      List<Failure> without = callers(api(server.url(""), TIMEOUT, null));
      List<Failure> failures = callers(api(server.url(""), TIMEOUT, pacer));
      System.out.printf("feign: %d callers, read timeout %d ms; failed after (ms) without"
          + " Headway %s, with Headway %s: the last at %.2fx the timeout (%.2fx without)%n",
          CALLERS, TIMEOUT.toMillis(), millis(without), millis(failures), ratio(failures),
          ratio(without));
      assertThat(server.requestCount()).isEqualTo(2 * CALLERS);
      for (Failure failure : failures) {
        assertThat(failure.failure()).isInstanceOf(RetryableException.class)
            .hasCauseInstanceOf(SocketTimeoutException.class);
        assertThat(failure.after()).as("failed %s after its call", failure.after())
            .isGreaterThanOrEqualTo(TIMEOUT.minus(Duration.ofMillis(20)))
            .isLessThan(TIMEOUT.plus(MARGIN));
      }
    }
  }

  @Test
  void aWaitForASpentWindowTheServerAnnouncedLeavesTheReadTimeoutWhole() throws Exception {
    VirtualClock clock = VirtualClock.create();
    try (ScriptedServer server = ScriptedServer.start(n -> Optional.of(n == 1
            ? Reply.ok(Duration.ZERO,
                "RateLimit-Policy: \"default\";q=1;w=2\r\nRateLimit: \"default\";r=0;t=2\r\n")
            : Reply.ok(Duration.ofMillis(1200), ""))); // slower than 2 s less the wait
        Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
            .maxWait(Duration.ofSeconds(30)).build()) {
      Api api = api(server.url(""), Duration.ofSeconds(2), pacer);
      assertThat(api.item("a")).isEqualTo("ok");

      CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> api.item("b"));
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

      assertThat(second.get(20, TimeUnit.SECONDS)).as("answered within the whole 2 s")
          .isEqualTo("ok");
    }
  }

  private static List<Failure> callers(Api api) throws Exception {
    List<CompletableFuture<Failure>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      String id = String.valueOf(i);
      CompletableFuture<Failure> failure = new CompletableFuture<>();
      Thread caller = new Thread(() -> {
        long start = System.nanoTime();
        try {
          failure.completeExceptionally(new AssertionError("answered: " + api.item(id)));
        } catch (Throwable t) {
          failure.complete(new Failure(Duration.ofNanos(System.nanoTime() - start), t));
        }
      }, "test-caller");
      caller.setDaemon(true);
      caller.start();
      calls.add(failure);
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
