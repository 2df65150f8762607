package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import okhttp3.Dispatcher;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Permits in flight are counted: concurrent calls never spend the same last unit twice. */
class ConcurrencyTest {
  private static final int CALLERS = 16;
  private static final int LAST_UNITS = 3;

  @ParameterizedTest
  @EnumSource(Mode.class)
  void sixteenCallersSharingTheLastThreeUnitsSendExactlyThreeBeforeTheReset(Mode mode)
      throws Exception {
    try (Harness h = Harness.start()) {
      Dispatcher dispatcher = new Dispatcher();
      dispatcher.setMaxRequests(CALLERS);
      dispatcher.setMaxRequestsPerHost(CALLERS);
      h.pacer(p -> p.maxWait(Duration.ofSeconds(120)));
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
      h.awaitCondition(() -> h.requestCount() - 1 + h.clock.pendingTasks() >= CALLERS);
      List<Outcome> outcomes = new ArrayList<>();
      for (CompletableFuture<Outcome> call : calls) {
        outcomes.add(h.drive(call));
      }

      assertThat(h.sent()).filteredOn(s -> s.at().compareTo(Duration.ofSeconds(60)) < 0)
          .as("requests the server received before the quota reset").hasSize(1 + LAST_UNITS);
      assertThat(outcomes).as("every caller is served in the end")
          .allSatisfy(o -> assertThat(o.code()).isEqualTo(200));
      assertThat(h.requestCount()).isEqualTo(1 + CALLERS);
    }
  }
}
