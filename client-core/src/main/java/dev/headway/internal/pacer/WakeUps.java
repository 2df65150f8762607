package dev.headway.internal.pacer;

import dev.headway.Scheduler;
import dev.headway.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * Wakes the asynchronous acquires due at one instant with one task of the scheduler, first in,
 * first out: in the order they asked to be woken then, the order the scheduler would have run
 * them one task each (a waiter that looks again joins the end of its new instant, as its own
 * new task would have). Thousands of waiters woken by one reset, or by its probes' answers, cost
 * the timer one task, not one each. Scheduled one by one, each waiter's due time also carried how
 * long its own decision took, so a real timer ran some younger waiters before older ones due at
 * the same instant, and each of those was told to look again a moment later: a wake-up that gave
 * nobody anything, for about a third of 32,000 waiters on a loaded machine. A permit handed out
 * closes the batches not yet woken ({@link #close}): what its caller then schedules for one of
 * their instants (sending the request, its answer) runs after them, and a waiter due then joins
 * a new batch after it, so the tasks due at one instant run in the order they were asked for,
 * as with one task each.
 */
final class WakeUps {
  /** One acquire's place in a batch: cancelled, it is passed over. */
  final class Place {
    final AsyncAcquire acquire;
    private final Batch batch;
    private volatile boolean cancelled;

    Place(AsyncAcquire acquire, Batch batch) {
      this.acquire = acquire;
      this.batch = batch;
    }

    /**
     * Passes this place over when its batch runs (a wake-up already running still runs); the
     * last place of a batch not yet woken cancels its task, so nothing is left scheduled.
     */
    void cancel() {
      Future<?> task;
      synchronized (lock) {
        if (cancelled) {
          return;
        }
        cancelled = true;
        if (--batch.live > 0 || batch.woken) {
          return;
        }
        removeOpen(batch); // no longer there if closed
        task = batch.task; // null while it is being scheduled: then cancelled once it is
      }
      if (task != null) {
        task.cancel(false);
      }
    }
  }

  /** The acquires due at one instant, woken by one task. */
  private final class Batch implements Runnable {
    final long atNanos;
    final List<Place> places = new ArrayList<>();
    /** The places not cancelled; guarded by {@code lock}. */
    int live;
    /** Whether its task has begun; guarded by {@code lock}. */
    boolean woken;
    /** The scheduler's task; guarded by {@code lock}. */
    @Nullable Future<?> task;

    Batch(long atNanos) {
      this.atNanos = atNanos;
    }

    @Override
    public void run() {
      synchronized (lock) {
        woken = true;
        removeOpen(this); // who is due at this instant from now on: a new batch
      }
      RuntimeException failed = null;
      for (Place place : places) {
        if (place.cancelled) {
          continue;
        }
        try {
          place.acquire.run();
        } catch (RuntimeException e) {
          failed = failed == null ? e : failed; // the others are still woken
        }
      }
      if (failed != null) {
        throw failed;
      }
    }
  }

  private final Scheduler scheduler;
  private final Ticker ticker;
  private final Object lock = new Object();
  /** The batches not yet woken nor closed, by their instant; guarded by {@code lock}. */
  private HashMap<Long, Batch> batches = new HashMap<>();
  /**
   * Whether {@code batches} holds any: written with it under {@code lock}, read without it by
   * {@link #close}, so that a permit handed out with no batch open (the common case) takes no
   * lock. Exact: a close that reads false comes before the next batch's creation.
   */
  private volatile boolean anyOpen;

  WakeUps(Scheduler scheduler, Ticker ticker) {
    this.scheduler = scheduler;
    this.ticker = ticker;
  }

  /**
   * Closes the batches not yet woken to new places: a permit handed out may lead its caller to
   * ask the scheduler for a task due at one of their instants, and a place that joins later
   * would run before that task, where its own task would have run after it.
   */
  void close() {
    if (!anyOpen) {
      return;
    }
    synchronized (lock) {
      if (!batches.isEmpty()) {
        batches = new HashMap<>(); // not clear(): its cost is the table's size, once grown
      }
      anyOpen = false;
    }
  }

  /** Removes {@code batch} from the open ones, if it is still there; call under {@code lock}. */
  private void removeOpen(Batch batch) {
    if (batches.remove(batch.atNanos, batch)) {
      anyOpen = !batches.isEmpty();
    }
  }

  /**
   * Wakes {@code acquire} at {@code atNanos} (on the ticker), with the others due then; returns
   * its place, to cancel. Throws what the scheduler throws if it refuses a new batch's task; the
   * acquires that joined that batch meanwhile are failed.
   */
  Place at(AsyncAcquire acquire, long atNanos) {
    Batch batch;
    Place place;
    synchronized (lock) {
      batch = batches.get(atNanos);
      boolean created = batch == null;
      if (created) {
        batch = new Batch(atNanos);
        batches.put(atNanos, batch);
        anyOpen = true;
      }
      place = new Place(acquire, batch);
      batch.places.add(place);
      batch.live++;
      if (!created) {
        return place;
      }
    }
    Future<?> task;
    try {
      task = scheduler.schedule(batch, Duration.ofNanos(Math.max(0, atNanos - ticker.read())));
    } catch (RuntimeException | Error e) {
      List<Place> stranded;
      synchronized (lock) {
        removeOpen(batch);
        stranded = new ArrayList<>(batch.places);
      }
      for (Place other : stranded) {
        if (other != place && !other.cancelled) {
          other.acquire.failed(e);
        }
      }
      throw e;
    }
    boolean dead;
    synchronized (lock) {
      batch.task = task;
      dead = batch.live == 0; // every place cancelled while it was being scheduled
    }
    if (dead) {
      task.cancel(false);
    }
    return place;
  }
}
