package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaStoreException;
import dev.headway.testing.CapturedLogs;
import dev.headway.testing.VirtualClock;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store call that fails while another one is answered, on two threads: whichever order the
 * two take, the store is then either healthy with no outage under way or down with one, and the
 * next real outage (more than a minute later) is warned at its first failure, its end logged at
 * {@code INFO}. The interleaving is forced through the fleet's own monitor: a third thread (here
 * the test) holds it while the failure has begun and the answer comes.
 */
@Timeout(30)
class FleetOutageRaceTest {
  private final VirtualClock clock = VirtualClock.create();

  @BeforeEach
  void forgetLogs() {
    CapturedLogs.clear();
  }

  @Test
  void anAnswerWhileAFailureWaitsForTheMonitorLeavesTheNextOutageWarned() throws Exception {
    InMemoryQuotaStore store = InMemoryQuotaStore.builder().clock(clock).build();
    PacerSettings config = new PacerSettings();
    config.ticker(clock);
    config.wallClock(clock);
    config.scheduler(clock);
    config.store(store.instance("p"));
    Settings settings = new Settings(config.build(), new Swallowed());
    Fleet fleet = new Fleet(store.instance("p"), settings);

    Thread failing;
    synchronized (fleet) {
      failing = new Thread(
          () -> fleet.failed(new QuotaStoreException("timed out"), clock.read()), "failing");
      failing.start();
      while (failing.getState() != Thread.State.BLOCKED
          && failing.getState() != Thread.State.TERMINATED) {
        Thread.onSpinWait();
      }
      // The failure has begun and waits for the monitor; the answer of another call comes
      // and takes the monitor first (here, re-entered by its holder).
      fleet.answered();
    }
    failing.join();
    clock.advance(Duration.ofSeconds(1));
    fleet.answered(); // the store answers the next calls
    clock.advance(Duration.ofSeconds(120));
    CapturedLogs.clear();

    fleet.failed(new QuotaStoreException("connection refused"), clock.read());
    clock.advance(Duration.ofSeconds(30));
    fleet.failed(new QuotaStoreException("connection refused"), clock.read());
    clock.advance(Duration.ofSeconds(30));
    fleet.answered();

    List<CapturedLogs.Line> shown = CapturedLogs.lines("dev.headway.store").stream()
        .filter(l -> l.level().getSeverity() >= Level.INFO.getSeverity()).toList();
    assertThat(shown).as("%s", shown).extracting(CapturedLogs.Line::level)
        .containsExactly(Level.WARNING, Level.INFO);
    assertThat(shown.get(0).message()).startsWith("Quota store did not answer (")
        .contains("connection refused");
    assertThat(fleet.healthy()).isTrue();
  }
}
