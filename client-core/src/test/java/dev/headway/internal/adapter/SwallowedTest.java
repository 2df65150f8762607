package dev.headway.internal.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.CapturedLogs.Line;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Exceptions the adapters' shared code catches and ignores are logged, once each. */
class SwallowedTest {
  @BeforeEach
  void forget() {
    CapturedLogs.clear();
  }

  /** A permit whose completion throws, the way a broken dialect or parser would. */
  private static final class ThrowingPermit implements Permit {
    final AtomicInteger released = new AtomicInteger();

    @Override
    public String partition() {
      return "https://api.example.com:443";
    }

    @Override
    public long cost() {
      return 1;
    }

    @Override
    public RateLimitSignal complete(int status, HttpFields headers, byte @Nullable [] body) {
      throw new IllegalStateException(
          "boom for https://user:s3cret@api.example.com/items?token=abc123 at step 2");
    }

    @Override
    public void complete(RateLimitSignal signal) {
      throw new IllegalStateException("boom");
    }

    @Override
    public void release() {
      released.incrementAndGet();
    }

    @Override
    public void close() {
      release();
    }
  }

  @Test
  void aFailedCompletionIsLoggedOnceWithoutQueryOrCredential() {
    ThrowingPermit permit = new ThrowingPermit();
    RateLimitSignal signal = Permits.complete(permit, 200, HttpFields.empty(), null);
    assertThat(signal).isEqualTo(RateLimitSignal.none(200));
    assertThat(permit.released).hasValue(1);

    assertThat(CapturedLogs.lines("dev.headway.adapter")).singleElement().satisfies(line -> {
      assertThat(line.level()).isEqualTo(Level.WARNING);
      assertThat(line.message()).isEqualTo("Headway: completing a permit with the response"
          + " failed; ignored so that the call goes on as it would without Headway:"
          + " java.lang.IllegalStateException: boom for https://api.example.com/items at step 2");
      assertThat(line.thrown()).isNotNull();
      assertThat(line.thrown().getMessage()).doesNotContain("s3cret", "token", "abc123");
      assertThat(line.thrown().getStackTrace()).isNotEmpty();
    });

    // Repeats within the minute: one DEBUG line each, no second warning, no stack trace.
    Permits.complete(permit, 200, HttpFields.empty(), null);
    Permits.complete(permit, 200, HttpFields.empty(), null);
    assertThat(CapturedLogs.lines("dev.headway.adapter")).extracting(Line::level)
        .containsExactly(Level.WARNING, Level.DEBUG, Level.DEBUG);
  }

  @Test
  void aFailedRetryAdviceIsLogged() {
    Pacer pacer = Pacer.create();
    RequestInfo request = RequestInfo.get(URI.create("https://api.example.com/x"));
    RateLimitSignal throttled = pacer.signalParser().parse(429,
        HttpFields.of("Retry-After", "1"), null, java.time.Instant.now());
    // The budget's ticker works once (the call's start), then throws: a broken component.
    AtomicInteger reads = new AtomicInteger();
    CallBudget budget = CallBudget.start(() -> {
      if (reads.getAndIncrement() > 0) {
        throw new UnsupportedOperationException("ticker broken");
      }
      return 0L;
    }, Duration.ofSeconds(1));
    assertThat(RetryAdvice.delay(pacer, request, throttled, 1, budget)).isEmpty();
    assertThat(CapturedLogs.lines("dev.headway.adapter")).singleElement()
        .extracting(Line::message).asString()
        .contains("asking the pacer for a retry's delay failed")
        .contains("UnsupportedOperationException: ticker broken");
  }
}
