package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.PacingStrategy;
import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Harness.Sent;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import okhttp3.Dispatcher;
import org.junit.jupiter.params.ParameterizedTest;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Permits in flight are counted: concurrent calls never spend the same last unit twice. */
class ConcurrencyTest {
  private static final int CALLERS = 16;
  private static final int LAST_UNITS = 3;

  static Stream<Arguments> modesAndStrategies() {
    return Stream.of(Mode.values()).flatMap(mode -> Stream.of(
        Arguments.of(mode, "useAllThenWait", PacingStrategy.useAllThenWait()),
        Arguments.of(mode, "spread", PacingStrategy.spread())));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("modesAndStrategies")
  void sixteenCallersSharingTheLastThreeUnitsSendNoMoreThanThreeBeforeTheReset(Mode mode,
      String name, PacingStrategy strategy) throws Exception {
    try (Harness h = Harness.start()) {
      Dispatcher dispatcher = new Dispatcher();
      dispatcher.setMaxRequests(CALLERS);
      dispatcher.setMaxRequestsPerHost(CALLERS);
      h.pacer(p -> p.maxWait(Duration.ofSeconds(120)).strategy(strategy));
      h.client(h.interceptor(), b -> b.dispatcher(dispatcher));
      h.enqueue(Reply.status(200).headers(
          "RateLimit-Policy", "\"default\";q=100;w=60",
          "RateLimit", "\"default\";r=" + LAST_UNITS + ";t=60"));
      h.fallback(Reply.status(200).body("sent"));
      h.send(mode, h.get("/learn"));

      List<CompletableFuture<Outcome>> calls = new ArrayList<>();
      for (int i = 0; i < CALLERS; i++) {
        calls.add(h.start(mode, h.get("/c" + i)));
      }
      // Every caller has either been sent or is waiting, before any virtual time passes.
      h.awaitCondition(() -> h.requestCount() - 1 + h.waitingCallers() >= CALLERS);
      h.awaitSettled();
      List<Outcome> outcomes = new ArrayList<>();
      for (CompletableFuture<Outcome> call : calls) {
        outcomes.add(h.drive(call));
      }

      List<Sent> beforeReset = h.sent().stream()
          .filter(s -> s.at().compareTo(Duration.ofSeconds(60)) < 0).toList();
      assertThat(beforeReset).as("requests the server received before the quota reset")
          .hasSizeLessThanOrEqualTo(1 + LAST_UNITS);
      if (name.equals("useAllThenWait")) {
        assertThat(beforeReset).as("all at once, the last units are all used")
            .hasSize(1 + LAST_UNITS)
            .allSatisfy(s -> assertThat(s.at()).isEqualTo(Duration.ZERO));
      }
      assertThat(outcomes).as("every caller is served in the end")
          .allSatisfy(o -> assertThat(o.code()).isEqualTo(200));
      assertThat(h.requestCount()).isEqualTo(1 + CALLERS);
    }
  }
}
