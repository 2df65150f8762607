package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.RequestInfo;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import java.lang.System.Logger.Level;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every exception the pacer swallows is logged through System.Logger "dev.headway" (captured
 * here by the tests' {@link CapturedLogs} finder): once at WARNING per kind, never silently
 * dropped.
 */
@Timeout(30)
class SwallowedExceptionsLoggedTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();

  @Test
  void aThrowingListenerIsLoggedOnceAtWarning() throws Exception {
    String bug = "listener bug " + System.identityHashCode(this);
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).listener(event -> {
          throw new IllegalStateException(bug);
        }).build();
    for (int i = 0; i < 5; i++) {
      pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 99 - i, 60));
    }
    assertThat(CapturedLogs.lines("dev.headway"))
        .filteredOn(l -> l.logger().equals("dev.headway") && l.level() == Level.WARNING
            && l.thrown() != null && bug.equals(l.thrown().getMessage()))
        .singleElement()
        .satisfies(l -> assertThat(l.message()).contains("PacerListener").contains(bug));
  }
}
