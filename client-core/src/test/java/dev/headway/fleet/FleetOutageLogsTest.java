package dev.headway.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.Pacer;
import dev.headway.RateLimitSignal;
import dev.headway.RequestInfo;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import dev.headway.testing.store.StoreFaults;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an operator reads in the logs when a pacer's store fails: one outage, one {@code WARNING}
 * naming the cause and one {@code INFO} when sharing resumes (logger {@code dev.headway.store});
 * a store that flaps logs at most one {@code WARNING} a minute, the outages within it at {@code
 * DEBUG}. One pacer, 4 closed-loop callers, a server of 30 requests per 2 s 5 ms away, the
 * store 1 ms away. Virtual time.
 */
@Timeout(120)
class FleetOutageLogsTest {
  private static final RequestInfo GET =
      RequestInfo.get(URI.create("https://api.example.com/items"));
  private static final long RTT_NANOS = 5_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(1), clock).build();
  private final StoreFaults faults = new StoreFaults();
  private final QuotaServer server = new QuotaServer(clock, 30, Duration.ofSeconds(2));
  private long runNanos;

  @BeforeEach
  void forgetLogs() {
    CapturedLogs.clear();
  }

  private void loop(Pacer pacer) {
    if (clock.read() >= runNanos) {
      return;
    }
    pacer.acquireAsync(GET).whenComplete((permit, error) -> {
      if (error != null) {
        clock.schedule(() -> loop(pacer), Duration.ofMillis(10));
        return;
      }
      RateLimitSignal answer = server.handle("p");
      clock.schedule(() -> {
        permit.complete(answer);
        loop(pacer);
      }, Duration.ofNanos(RTT_NANOS));
    });
  }

  /** Runs for {@code seconds}, the store down over each {from, until} (ms) of {@code outages}. */
  private void run(int seconds, long[]... outages) {
    runNanos = seconds * 1_000_000_000L;
    Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .maxWait(Duration.ofSeconds(3)).jitterSeed(1).store(faults.wrap(store.instance("p")))
        .build();
    for (int c = 0; c < 4; c++) {
      loop(pacer);
    }
    for (long[] outage : outages) {
      clock.schedule(() -> faults.unavailable(true), Duration.ofMillis(outage[0]));
      clock.schedule(() -> faults.unavailable(false), Duration.ofMillis(outage[1]));
    }
    clock.advance(Duration.ofNanos(runNanos + 5_000_000_000L));
  }

  /** Headway's lines at INFO and above, every logger. */
  private static List<CapturedLogs.Line> shown() {
    return CapturedLogs.lines("dev.headway").stream()
        .filter(l -> l.level().getSeverity() >= Level.INFO.getSeverity()).toList();
  }

  private static List<CapturedLogs.Line> store(Level level, String containing) {
    return CapturedLogs.lines("dev.headway.store").stream()
        .filter(l -> l.level() == level && l.message().contains(containing)).toList();
  }

  @Test
  void oneOutageLogsOneWarningNamingTheCauseAndOneInfo() {
    run(20, new long[] {5_000, 8_000});
    List<CapturedLogs.Line> shown = shown();
    assertThat(shown).as("%s", shown).hasSize(2);
    assertThat(shown.get(0).logger()).isEqualTo("dev.headway.store");
    assertThat(shown.get(0).level()).isEqualTo(Level.WARNING);
    assertThat(shown.get(0).message()).startsWith("Quota store did not answer (")
        .contains("QuotaStoreException").endsWith("pacing locally until it does");
    assertThat(shown.get(1).level()).isEqualTo(Level.INFO);
    assertThat(shown.get(1).message()).isEqualTo("Quota store answers again; sharing resumes");
  }

  /**
   * Before, each of the 9 outages logged a WARNING and an INFO: 18 lines in 75 s. Now the first
   * outage logs its pair, the 7 that follow within its minute one DEBUG line each (and their
   * ends at DEBUG), and the one 65 s after the first its pair again, counting the 7.
   */
  @Test
  void aStoreThatFlapsLogsAtMostOneWarningAMinute() {
    long[][] outages = new long[9][];
    for (int i = 0; i < 8; i++) {
      outages[i] = new long[] {5_000 + 6_000L * i, 6_500 + 6_000L * i};
    }
    outages[8] = new long[] {70_000, 71_500};
    run(75, outages);
    List<CapturedLogs.Line> shown = shown();
    assertThat(shown).as("%s", shown).extracting(CapturedLogs.Line::level)
        .containsExactly(Level.WARNING, Level.INFO, Level.WARNING, Level.INFO);
    assertThat(shown.get(0).message()).endsWith("pacing locally until it does");
    assertThat(shown.get(2).message())
        .contains("(7 outages since the last WARNING logged at DEBUG)");
    assertThat(store(Level.DEBUG, "did not answer again")).as("every outage seen").hasSize(7);
    assertThat(store(Level.DEBUG, "answers again")).hasSize(7);
  }

  /**
   * A brief outage at 5 s, then one from 20 s to 200 s: the long one began within a minute of
   * the first WARNING, so it was logged at DEBUG; once that minute has passed and it still lasts,
   * it is warned (and its end logged at INFO). Before, it never showed above DEBUG.
   */
  @Test
  void aLongOutageThatBeganWithinTheMinuteIsWarnedOnceTheMinuteHasPassed() {
    run(210, new long[] {5_000, 6_000}, new long[] {20_000, 200_000});
    List<CapturedLogs.Line> shown = shown();
    assertThat(shown).as("%s", shown).extracting(CapturedLogs.Line::level)
        .containsExactly(Level.WARNING, Level.INFO, Level.WARNING, Level.INFO);
    assertThat(shown.get(2).message()).startsWith("Quota store has not answered for ")
        .endsWith("pacing locally until it does");
  }

  /**
   * A blip at 5 s (a JVM's cold start can pass the store's timeout), then Redis down from 26 s
   * to 42 s: within the minute of the blip's WARNING, so the real outage was logged only at
   * DEBUG, its end too, and an operator at INFO saw no outage at all (a new user's trial, Redis
   * stopped for 16 s). Now an outage still under way 10 s after it began is warned then.
   */
  @Test
  void anOutageWithinTheMinuteIsWarnedOnceItHasLastedTenSeconds() {
    run(50, new long[] {5_000, 5_600}, new long[] {26_000, 42_000});
    List<CapturedLogs.Line> shown = shown();
    assertThat(shown).as("%s", shown).extracting(CapturedLogs.Line::level)
        .containsExactly(Level.WARNING, Level.INFO, Level.WARNING, Level.INFO);
    assertThat(shown.get(2).message()).startsWith("Quota store has not answered for 10 s")
        .endsWith("pacing locally until it does");
  }
}
