package dev.headway.fuzz;

import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.QuotaSnapshot;
import dev.headway.fuzz.HostileSequence.Step;
import dev.headway.testing.VirtualClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One pacer (virtual time) fed a sequence of responses, and the checks that its state stays
 * bounded whatever the sequence: at most {@code maxPartitions} partitions besides those it must
 * keep (held), at most 4 partitions split off one origin by a server's {@code pk}, at most 16
 * policies per partition; and the work per request counted as the policies the pacing strategy
 * is asked about (an operation count: it grows with what one admission walks, and does not
 * depend on how busy the machine is). Not thread-safe.
 */
final class SequenceRun {
  /** Policies one partition may hold (the pacer's documented bound). */
  static final int MAX_POLICIES = 16;
  /** Partitions a server's {@code pk} may split off one origin. */
  static final int MAX_CHILDREN = 4;

  final VirtualClock clock = VirtualClock.create();
  final int maxPartitions;
  final Pacer pacer;
  /** Times the pacing strategy was asked about a policy: the work of admissions. */
  long strategyCalls;
  long completed;
  long refused;

  /** The shared store whose answers are often garbage; null without one. */
  final GarbageStore store;

  SequenceRun(int maxPartitions) {
    this(maxPartitions, false);
  }

  /**
   * A run with {@code maxPartitions}; with {@code garbageStore}, the pacer shares its quotas
   * through a {@link GarbageStore} (one answer in 4 garbage).
   */
  SequenceRun(int maxPartitions, boolean garbageStore) {
    this.maxPartitions = maxPartitions;
    this.store = garbageStore ? new GarbageStore(clock, maxPartitions, 4) : null;
    PacingStrategy all = PacingStrategy.useAllThenWait();
    Pacer.Builder builder = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).maxPartitions(maxPartitions)
        .strategy((available, limit, timeToResetNanos) -> {
          strategyCalls++;
          return all.spacingNanos(available, limit, timeToResetNanos);
        });
    if (store != null) {
      builder.store(store);
    }
    this.pacer = builder.build();
  }

  /**
   * Sends {@code step}'s request (after a minute of virtual time if its partition is spent or
   * held: a server's reset or hold, capped, has passed or the request is counted as refused) and
   * completes it with the step's response; a millisecond passes.
   */
  void send(Step step) {
    Optional<Permit> permit = pacer.tryAcquire(step.request());
    if (permit.isEmpty()) {
      clock.advance(Duration.ofSeconds(61));
      permit = pacer.tryAcquire(step.request());
    }
    if (permit.isEmpty()) {
      refused++;
    } else {
      permit.get().complete(step.status(), step.headers(), null);
      completed++;
    }
    clock.advance(Duration.ofMillis(1));
  }

  /** The state's size now: partitions held, and policies in all of them. */
  record Size(int partitions, int policies) {}

  /** Checks the bounds; returns the state's size. */
  Size check(String when) {
    List<QuotaSnapshot> partitions = pacer.partitions();
    // A server's pk partitions live with the partition they split from (docs/pacer.md):
    // partitionCount() counts those. Past maxPartitions only partitions the pacer must keep may
    // stay: one with a hold in force, permits in flight or callers waiting is never evicted.
    int busy = 0;
    for (QuotaSnapshot partition : partitions) {
      if (!partition.partition().contains("|pk=") && (partition.heldFor().isPresent()
          || partition.inFlight() > 0 || partition.waiting() > 0)) {
        busy++;
      }
    }
    if (pacer.partitionCount() > maxPartitions + busy) {
      throw new AssertionError(when + ": " + pacer.partitionCount() + " partitions, more than "
          + maxPartitions + " and " + busy + " that must be kept");
    }
    Map<String, Integer> children = new HashMap<>();
    int policies = 0;
    for (QuotaSnapshot partition : partitions) {
      int n = partition.policies().size();
      policies += n;
      if (n > MAX_POLICIES) {
        throw new AssertionError(when + ": partition " + partition.partition() + " holds " + n
            + " policies, more than " + MAX_POLICIES);
      }
      int split = partition.partition().indexOf("|pk=");
      if (split >= 0) {
        int count = children.merge(partition.partition().substring(0, split), 1, Integer::sum);
        if (count > MAX_CHILDREN) {
          throw new AssertionError(when + ": " + count + " pk partitions of "
              + partition.partition().substring(0, split) + ", more than " + MAX_CHILDREN);
        }
      }
    }
    return new Size(partitions.size(), policies);
  }
}
