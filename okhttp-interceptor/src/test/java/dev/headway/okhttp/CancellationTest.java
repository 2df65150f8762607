package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A wait ends promptly, and sends nothing, when the call is cancelled or times out. */
class CancellationTest {
  /**
   * A real-time bound that only catches a hang: the 50 ms promise itself is checked without a
   * clock by {@link CallWaiterTest} (no poll blocks longer than 20 ms).
   */
  private static final long HANG_MILLIS = 2_000;

  private static Reply exhausted() {
    return Reply.status(200).headers(
        "RateLimit-Policy", "\"default\";q=2;w=60",
        "RateLimit", "\"default\";r=0;t=20");
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void cancellingACallWaitingForAPermitEndsItPromptlyAndSendsNothing(Mode mode)
      throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(exhausted()).fallback(Reply.status(200));
      h.send(mode, h.get("/first"));
      Call call = h.client().newCall(h.get("/waiting"));
      CompletableFuture<Outcome> outcome = h.start(mode, call);
      h.awaitWaits(1);

      long cancelledAt = System.nanoTime();
      call.cancel();
      Outcome result = Harness.await(outcome);
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cancelledAt);

      assertThat(result.failure()).hasMessageContaining("Canceled");
      assertThat(tookMillis).isLessThan(HANG_MILLIS);
      h.clock.advance(Duration.ofMinutes(5)); // the reset passes: still nothing goes out
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void cancellingACallWaitingToRetryEndsItAndSendsNoRetry(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(Reply.status(429).header("Retry-After", "20")).fallback(Reply.status(200));
      Call call = h.client().newCall(h.get("/retry"));
      CompletableFuture<Outcome> outcome = h.start(mode, call);
      h.awaitWaits(1);

      call.cancel();
      Outcome result = Harness.await(outcome);

      assertThat(result.failure()).hasMessageContaining("Canceled");
      h.clock.advance(Duration.ofMinutes(5));
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theCallTimeoutEndsAWaitWithTimeoutAndSendsNothing(Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.client(h.interceptor(), b -> b.callTimeout(Duration.ofMillis(200)));
      h.enqueue(exhausted()).fallback(Reply.status(200));
      h.send(mode, h.get("/first"));

      Outcome result = Harness.await(h.start(mode, h.get("/waiting")));

      assertThat(result.failure()).isInstanceOf(InterruptedIOException.class)
          .hasMessageContaining("timeout");
      h.clock.advance(Duration.ofMinutes(5));
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }

  @Test
  void interruptingASyncCallWaitingForAPermitThrowsInterruptedIoExceptionAndKeepsTheFlag()
      throws Exception {
    try (Harness h = Harness.start()) {
      h.enqueue(exhausted()).fallback(Reply.status(200));
      h.send(Mode.SYNC, h.get("/first"));
      CompletableFuture<Throwable> thrown = new CompletableFuture<>();
      CompletableFuture<Boolean> flag = new CompletableFuture<>();
      Thread caller = new Thread(() -> {
        try {
          h.client().newCall(h.get("/waiting")).execute().close();
          thrown.complete(null);
        } catch (Throwable t) {
          thrown.complete(t);
        }
        flag.complete(Thread.currentThread().isInterrupted());
      });
      caller.start();
      h.awaitWaits(1);

      caller.interrupt();

      assertThat(Harness.await(thrown)).isInstanceOf(InterruptedIOException.class);
      assertThat(Harness.await(flag)).as("interrupt flag restored").isTrue();
      h.clock.advance(Duration.ofMinutes(5));
      assertThat(h.requestCount()).isEqualTo(1);
    }
  }
}
