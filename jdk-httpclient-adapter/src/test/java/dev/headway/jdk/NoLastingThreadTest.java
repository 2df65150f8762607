package dev.headway.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What an SDK embedding Headway checks with a thread dump: after a JSON 429 read for its body's
 * hint, and the pacer closed, no thread Headway started is left, and none of the JDK's that
 * lives as long as the JVM (the timer of {@code CompletableFuture.delayedExecutor}) was started.
 * Isolated: other cases' threads would blur the count.
 */
@Isolated
class NoLastingThreadTest {
  private static final Duration IDLE_STOP = Duration.ofSeconds(5);

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aJson429LeavesNoThreadAfterClose(Mode mode) throws Exception {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    try (Harness h = new Harness()) {
      h.enqueue(429, "Content-Type", "application/json", "{\"retry_after\": 7}");
      h.enqueue(200, "ok");

      HttpResponse<String> response = h.call(mode, h.get("/"));

      assertThat(response.body()).isEqualTo("ok");
      assertThat(h.requests()).isEqualTo(2);
      Thread.sleep(200); // real time: the body hint's wait (100 ms) has passed
      assertThat(names(Thread.getAllStackTraces().keySet()))
          .doesNotContain("CompletableFutureDelayScheduler");
      h.pacer.close();
    }
    long deadline = System.nanoTime() + IDLE_STOP.toNanos();
    List<String> left = headwayThreadsSince(before);
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50); // real time: idle threads stop by themselves
      left = headwayThreadsSince(before);
    }
    assertThat(left).isEmpty();
  }

  private static List<String> headwayThreadsSince(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.isAlive())
        .map(Thread::getName)
        .filter(name -> name.startsWith("headway-"))
        .collect(Collectors.toList());
  }

  private static Set<String> names(Set<Thread> threads) {
    return threads.stream().map(Thread::getName).collect(Collectors.toSet());
  }
}
