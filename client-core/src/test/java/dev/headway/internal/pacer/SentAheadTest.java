package dev.headway.internal.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.Lease;
import dev.headway.store.QuotaStore;
import dev.headway.store.SharedQuota;
import dev.headway.testing.VirtualClock;
import dev.headway.testing.store.ForwardingQuotaStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * Units a caller sent on its own while the lease it could no longer wait for was on its way are
 * the first units of that lease when it comes, and the store is told they were sent as late as
 * the latest of them: a count observed before that instant does not hold them.
 */
class SentAheadTest {
  private static final long MS = 1_000_000L;

  private final VirtualClock clock = VirtualClock.create();
  private final InMemoryQuotaStore memory = InMemoryQuotaStore.builder().clock(clock)
      .roundTrip(Duration.ofMillis(100), clock).build();
  private final List<Instant> toldSentAt = new ArrayList<>();

  @Test
  void unitsSentAheadAreToldAsOfTheLatestSendNotTheLastReported() {
    QuotaStore store = recording(memory.instance("pod-a"));
    PacerSettings config = new PacerSettings();
    config.ticker(clock);
    config.wallClock(clock);
    config.scheduler(clock);
    config.store(store);
    Settings settings = new Settings(config.build(), new Swallowed());
    Fleet fleet = new Fleet(store, settings);
    Partition partition = new Partition("https://api.example.com", null, 0);
    Instant start = clock.instant();
    long now = clock.read();
    synchronized (partition) {
      SharedBudget budget = fleet.budget(partition);
      // Two callers whose deadlines have come while the lease is on its way go on their own.
      assertThat(budget.earliest(new Evaluation(), 1, now, now, now)).isEqualTo(now);
      assertThat(budget.earliest(new Evaluation(), 1, now, now, now)).isEqualTo(now);
      // The one committed to go later is reported first, the one going now after it.
      budget.spend(1, now, now + 5 * MS);
      budget.spend(1, now, now + 2 * MS);
    }
    clock.advance(Duration.ofSeconds(3)); // the lease comes, lends them, and ends

    assertThat(toldSentAt).as("units sent told to the store").isNotEmpty();
    assertThat(toldSentAt.get(0)).as("as of the latest send")
        .isEqualTo(start.plusMillis(5));
  }

  private QuotaStore recording(QuotaStore store) {
    return new ForwardingQuotaStore(store) {
      @Override
      public CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt) {
        toldSentAt.add(lastSentAt);
        return super.spent(lease, units, lastSentAt);
      }
    };
  }
}
