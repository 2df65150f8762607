package dev.headway.feign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.testing.VirtualClock;
import feign.Feign;
import feign.Request;
import feign.RequestLine;
import feign.RetryableException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A read timeout is a failed send, Feign's retryer's to retry as without Headway, though it is an
 * {@link InterruptedIOException} ({@link SocketTimeoutException}) as Headway's interrupted wait
 * is. The read timeout is real time (300 ms); pacing time is virtual.
 */
@Timeout(30)
class FeignRetriesATimeoutTest {
  interface Api {
    @RequestLine("GET /items")
    String items();
  }

  private final MockWebServer server = new MockWebServer();
  private final VirtualClock clock = VirtualClock.create().autoAdvance(true);
  private final AtomicInteger feignRetries = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private Pacer pacer() {
    return Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .maxWait(Duration.ofSeconds(60)).maxAttempts(3).build();
  }

  private Feign.Builder feign() {
    return Feign.builder().retryer(new RateLimitCapabilityTest.CountingRetryer(feignRetries))
        .options(new Request.Options(2, TimeUnit.SECONDS, 300, TimeUnit.MILLISECONDS, true));
  }

  @Test
  void aReadTimeoutIsStillRetriedByFeignsRetryer() {
    server.enqueue(new MockResponse.Builder().onResponseStart(SocketEffect.Stall.INSTANCE)
        .build());
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    Pacer pacer = pacer();
    Api api = feign().addCapability(RateLimitCapability.create(pacer))
        .target(Api.class, server.url("/").toString());

    assertThat(api.items()).isEqualTo("ok");
    assertThat(feignRetries).hasValue(1);
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(pacer.partitions()).allSatisfy(quota -> assertThat(quota.policies())
        .allSatisfy(policy -> assertThat(policy.inFlight()).isZero()));
  }

  /** What Headway decides stays Headway's: an interrupted wait is not retried by Feign. */
  @Test
  void anInterruptedWaitIsNotRetriedByFeignsRetryer() {
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "5")
        .body("slow down").build());
    server.enqueue(new MockResponse.Builder().code(200).body("never").build());
    VirtualClock manual = VirtualClock.create();
    Pacer pacer = Pacer.builder().ticker(manual).wallClock(manual).scheduler(manual)
        .jitter(Jitter.none()).maxWait(Duration.ofSeconds(60)).build();
    Api api = feign().addCapability(RateLimitCapability.create(pacer))
        .target(Api.class, server.url("/").toString());

    Thread.currentThread().interrupt(); // the wait for the retry ends at once
    RetryableException thrown;
    try {
      thrown = catchThrowableOfType(RetryableException.class, api::items);
    } finally {
      assertThat(Thread.interrupted()).isTrue();
    }

    assertThat(thrown).cause().isInstanceOf(InterruptedIOException.class)
        .hasMessageContaining("quota");
    assertThat(feignRetries).hasValue(0);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }
}
