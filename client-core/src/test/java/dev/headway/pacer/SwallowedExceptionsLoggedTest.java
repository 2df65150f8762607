package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every exception the pacer swallows is logged through System.Logger "dev.headway" (here backed
 * by java.util.logging, the JDK's default): once at WARNING per kind, never silently dropped.
 */
@Timeout(30)
class SwallowedExceptionsLoggedTest {
  static final RequestInfo GET = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Logger logger = Logger.getLogger("dev.headway");
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void listen() {
    logger.addHandler(handler);
  }

  @AfterEach
  void stopListening() {
    logger.removeHandler(handler);
  }

  @Test
  void aThrowingListenerIsLoggedOnceAtWarning() throws Exception {
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).listener(event -> {
          throw new IllegalStateException("listener bug");
        }).build();
    for (int i = 0; i < 5; i++) {
      pacer.acquire(GET).complete(Signals.limit(200, 100, 60, 99 - i, 60));
    }
    assertThat(records).filteredOn(r -> r.getLevel() == Level.WARNING).singleElement()
        .satisfies(r -> {
          assertThat(r.getMessage()).contains("PacerListener").contains("listener bug");
          assertThat(r.getThrown()).hasMessage("listener bug");
        });
  }
}
