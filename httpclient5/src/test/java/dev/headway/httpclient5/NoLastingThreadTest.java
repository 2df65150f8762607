package dev.headway.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.testing.VirtualClock;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What an SDK embedding Headway checks with a thread dump: after a JSON 429 read for its body's
 * hint through the asynchronous client (its body in time, or late: then the held exchange's end is
 * waited for before the retry), and the client and pacer closed, no thread Headway started is
 * left, and none of the JDK's that lives as long as the JVM (the timer of
 * {@code CompletableFuture.delayedExecutor} and {@code completeOnTimeout}) was started. Isolated:
 * other cases' threads would blur the count.
 */
@Isolated
@Timeout(30)
class NoLastingThreadTest {
  private static final Duration IDLE_STOP = Duration.ofSeconds(5);

  @ParameterizedTest
  @ValueSource(longs = {0, 5_000})
  void aJson429LeavesNoThreadAfterClose(long bodyDelayMillis) throws Exception {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    VirtualClock clock = VirtualClock.create();
    try (MockWebServer server = new MockWebServer()) {
      server.start(InetAddress.getByName("127.0.0.1"), 0);
      server.enqueue(new MockResponse.Builder().code(429)
          .addHeader("Content-Type", "application/json").addHeader("Retry-After", "1")
          .body("{\"retry_after\": 2}").bodyDelay(bodyDelayMillis, TimeUnit.MILLISECONDS)
          .build());
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
          .maxWait(Duration.ofSeconds(10)).build();
      CloseableHttpAsyncClient client = RateLimitAsyncExecChainHandler.create(pacer)
          .addTo(HttpAsyncClients.custom()).build();
      client.start();

      Future<SimpleHttpResponse> call = client.execute(
          SimpleRequestBuilder.get(server.url("/").uri()).build(), null);
      SimpleHttpResponse response = clock.await(call);

      assertThat(response.getCode()).isEqualTo(200);
      assertThat(new String(response.getBodyBytes(), StandardCharsets.UTF_8)).isEqualTo("ok");
      assertThat(server.getRequestCount()).isEqualTo(2);
      Thread.sleep(200); // real time: the body hint's wait (100 ms) has passed
      assertThat(names(Thread.getAllStackTraces().keySet()))
          .doesNotContain("CompletableFutureDelayScheduler");
      client.close(CloseMode.IMMEDIATE);
      pacer.close();
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
