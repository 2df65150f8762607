package dev.headway.jdk;

import static java.net.http.HttpResponse.BodyHandlers.ofString;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.PacingStrategy;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Concurrent callers never spend the same last unit twice. */
class SharedLastUnitsTest {
  private static final int CALLERS = 16;
  private static final int LAST_UNITS = 3;

  private static void awaitDone(List<Mode.Call<String>> calls, int count) throws Exception {
    long deadline = System.nanoTime() + Harness.REAL_TIMEOUT.toNanos();
    while (calls.stream().filter(c -> c.future().isDone()).count() < count
        && System.nanoTime() < deadline) {
      try {
        java.util.concurrent.CompletableFuture.anyOf(calls.stream()
                .map(Mode.Call::future)
                .filter(f -> !f.isDone())
                .toArray(java.util.concurrent.CompletableFuture[]::new))
            .get(10, java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        // Poll again.
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void sixteenConcurrentCallersSharingTheLastThreeUnitsSendExactlyThreeBeforeTheReset(Mode mode)
      throws Exception {
    try (Harness h = new Harness(b -> b.strategy(PacingStrategy.useAllThenWait())
        .jitter(Jitter.none()).maxWait(Duration.ofMinutes(5)))) {
      // A server that counts: LAST_UNITS left in this minute's window, then a fresh window.
      AtomicInteger served = new AtomicInteger();
      h.server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          int n = served.getAndIncrement(); // 0 is the priming request
          long elapsed = h.clock.elapsed().toSeconds();
          String limit = elapsed < 60
              ? "\"default\";r=" + Math.max(0, LAST_UNITS - n) + ";t=" + (60 - elapsed)
              : "\"default\";r=" + (100 - (n - LAST_UNITS)) + ";t=" + (120 - elapsed);
          return new MockResponse.Builder().code(200)
              .addHeader("RateLimit-Policy", "\"default\";q=100;w=60")
              .addHeader("RateLimit", limit).body("ok").build();
        }
      });
      h.call(mode, h.get("/prime"));

      List<Mode.Call<String>> calls = new ArrayList<>();
      for (int i = 0; i < CALLERS; i++) {
        calls.add(mode.start(h.client, h.get("/work/" + i), ofString()));
      }
      h.awaitWaiting(mode, CALLERS - LAST_UNITS);
      // The others wait on the virtual clock, which stands still: nothing more can be sent.
      // Let the calls already let through finish (in real time), then count.
      awaitDone(calls, LAST_UNITS);

      assertThat(h.requests() - 1).as("sent before the reset").isEqualTo(LAST_UNITS);
      assertThat(calls.stream().filter(c -> c.future().isDone()).count())
          .isEqualTo(LAST_UNITS);

      for (Mode.Call<String> call : calls) {
        HttpResponse<String> response = h.drive(call);
        assertThat(response.statusCode()).isEqualTo(200);
      }
      assertThat(h.requests()).isEqualTo(1 + CALLERS);
      assertThat(h.clock.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(60));
    }
  }
}
