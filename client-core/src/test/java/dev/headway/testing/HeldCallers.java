package dev.headway.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.ScriptedServer.Reply;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The two scenarios of every adapter's test of the client's own timeout on a call Headway held,
 * against a real {@link ScriptedServer}. Held while the server has answered nothing on its
 * partition (the probes of first contact hold the others back), the timeout counts from the
 * call: {@link #CALLERS} callers against a server that never answers fail as soon as they do
 * without Headway ({@link #failAsSoonAsWithoutHeadway}). Held after the server answered (a spent
 * window it announced), the timeout is whole ({@link #spentWindowThenSlow},
 * {@link #passTheWindow}). Real time for the hanging server (what is measured is when each call
 * fails, from the call); the bounds lean the way that cannot flake on a loaded machine (a call
 * never fails before its timeout; the margin after it is {@link #MARGIN}, against the 550 ms or
 * more a held caller lost before: 1.5 s and later).
 */
public final class HeldCallers {
  /** How many calls start at once against the hanging server. */
  public static final int CALLERS = 8;
  /** The client's timeout of each call against the hanging server. */
  public static final Duration TIMEOUT = Duration.ofSeconds(1);
  /** How late after {@link #TIMEOUT} a call may fail. */
  public static final Duration MARGIN = Duration.ofMillis(350);

  /** When one call failed, from its call, and how. */
  public record Failure(Duration after, Throwable failure) {}

  /** Runs {@link #CALLERS} calls, with Headway's {@code pacer} or without it ({@code null}). */
  @FunctionalInterface
  public interface Run {
    /** Returns how each call to {@code server} failed, in any order. */
    List<Failure> callers(ScriptedServer server, @Nullable Pacer pacer) throws Exception;
  }

  /** One call through the client under test. */
  @FunctionalInterface
  public interface Call {
    /** Starts a call of {@code url}: the future completes as it is answered or fails. */
    CompletableFuture<?> start(String url) throws Exception;
  }

  /**
   * Runs the callers against a server that never answers, without Headway and then with it;
   * prints when each failed, and asserts that with Headway every call failed as {@code how}
   * checks, no sooner than {@link #TIMEOUT} (less 20 ms) and within {@link #MARGIN} after it.
   * {@code name} names the client in the printed line, {@code timeout} its timeout's kind.
   */
  public static void failAsSoonAsWithoutHeadway(String name, String timeout, Run run,
      Consumer<Throwable> how) throws Exception {
    try (ScriptedServer server = ScriptedServer.hanging();
        Pacer pacer = Pacer.builder().maxWait(Duration.ofSeconds(30)).build()) {
      List<Failure> without = run.callers(server, null);
      List<Failure> failures = run.callers(server, pacer);
      System.out.printf("%s: %d callers, %s %d ms; failed after (ms) without Headway %s, with"
          + " Headway %s: the last at %.2fx the timeout (%.2fx without)%n", name, CALLERS,
          timeout, TIMEOUT.toMillis(), millis(without), millis(failures), ratio(failures),
          ratio(without));
      assertThat(server.requestCount()).isEqualTo(2 * CALLERS);
      for (Failure failure : failures) {
        how.accept(failure.failure());
        assertThat(failure.after()).as("failed %s after its call", failure.after())
            .isGreaterThanOrEqualTo(TIMEOUT.minus(Duration.ofMillis(20)))
            .isLessThan(TIMEOUT.plus(MARGIN));
      }
    }
  }

  /**
   * Starts {@link #CALLERS} calls of {@code /items/0} to {@code /items/7} on {@code server} at
   * once and returns how each failed, timed from its start (an answer fails the test).
   */
  public static List<Failure> callers(ScriptedServer server, Call call) throws Exception {
    List<CompletableFuture<Failure>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      long start = System.nanoTime();
      calls.add(call.start(server.url("/items/" + i)).handle((answer, failure) -> {
        Throwable cause = failure instanceof CompletionException
            || failure instanceof ExecutionException ? failure.getCause() : failure;
        return new Failure(Duration.ofNanos(System.nanoTime() - start),
            cause != null ? cause : new AssertionError("answered: " + answer));
      }));
    }
    List<Failure> failures = new ArrayList<>();
    for (CompletableFuture<Failure> failure : calls) {
      failures.add(failure.get(20, TimeUnit.SECONDS));
    }
    return failures;
  }

  /**
   * Starts a server whose first answer spends the window it announces (one request per 2 s, none
   * left, 2 s to its reset) and whose later answers take 1.2 s: slower than a 2 s timeout less
   * the wait for the window.
   */
  public static ScriptedServer spentWindowThenSlow() throws Exception {
    return ScriptedServer.start(n -> Optional.of(n == 1
        ? Reply.ok(Duration.ZERO,
            "RateLimit-Policy: \"default\";q=1;w=2\r\nRateLimit: \"default\";r=0;t=2\r\n")
        : Reply.ok(Duration.ofMillis(1200), "")));
  }

  /**
   * Waits (real time) for one caller to wait in {@code pacer} for {@code server}'s window, then
   * moves {@code clock} on until that caller sent, and asserts that it waited for the window.
   */
  public static void passTheWindow(ScriptedServer server, Pacer pacer, VirtualClock clock)
      throws InterruptedException {
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
  }

  private static List<Long> millis(List<Failure> failures) {
    return failures.stream().map(f -> f.after().toMillis()).sorted().toList();
  }

  private static double ratio(List<Failure> failures) {
    return failures.stream().mapToLong(f -> f.after().toNanos()).max().orElseThrow()
        / (double) TIMEOUT.toNanos();
  }

  private HeldCallers() {}
}
