package dev.headway.store;

import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * Where quota state lives when several instances (processes, or pacers of one process) share one
 * quota: what the server last said, what the fleet took since, holds and learned rates.
 *
 * <h2>What is shared</h2>
 *
 * Per {@link QuotaKey} (one policy of one partition):
 *
 * <ul>
 *   <li>the last {@linkplain ServerCount server count}, with the instant it holds for, its reset,
 *       quota and window. A count replaces the stored one only if it is not older ({@code
 *       observedAt}); when its reset passes and its quota and window are known, the store starts
 *       the next window with the full quota by itself, of which leases take at most two units
 *       (the new window's probes) until a count of that window arrives: a server need not give
 *       the whole quota back at its reset;
 *   <li>the units taken since that count, through {@linkplain Lease leases}: an instance takes a
 *       few units at a time, spends them locally without a round trip, tells the store which
 *       units it sent and when ({@link #spent}), and gives back what it did not spend. The units
 *       a lease still holds, and the units sent after the count's {@code observedAt}, are
 *       subtracted from the count, so two instances never spend the same last unit; units sent
 *       at or before {@code observedAt} are in the count already and are not subtracted again;
 *   <li>a hold ({@code Retry-After}, a 429): one instance's hold holds the fleet, until it ends
 *       or a request sent during it is admitted ({@link #lift});
 *   <li>the refill rate of a server that gives units back continuously (token bucket, GCRA,
 *       sliding window), as an instance learned it, or as the store saw it: when the first count
 *       of a window the store started itself leaves less than half the quota (the server did not
 *       give the quota back at its reset; a sliding window's previous window still weighs), the
 *       store keeps the quota per window as the rate, unless one is known. With a rate, the count
 *       grows by it from its instant up to its quota ({@link SharedQuota#available(Instant)}), is
 *       not rolled over at its reset, and leases are not cut at it;
 *   <li>the instances seen recently, to size leases: a lease is about the available units
 *       divided by the instances, bounded by what was asked and by the store's own bounds.
 * </ul>
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li><b>Atomic.</b> Each call is applied atomically with respect to every other call on the
 *       same key, from any instance: the units of concurrent leases never add up to more than was
 *       available.
 *   <li><b>Asynchronous.</b> No method blocks; each returns a stage completed when the store has
 *       answered. A pacer never waits on a stage while a request waits for a permit: it spends
 *       units of a lease it already holds, and refills the lease in the background.
 *   <li><b>Bounded in time.</b> Every stage completes within the store's own timeout. It then
 *       completes exceptionally with a {@link QuotaStoreException} (possibly wrapped in a {@link
 *       java.util.concurrent.CompletionException}), and with nothing else (a closed store fails
 *       its stages the same way); no method throws, except {@link NullPointerException} and
 *       {@link IllegalArgumentException} for invalid arguments.
 *   <li><b>On failure</b> the pacer falls back to local pacing, as a pacer without a store does.
 *       A store fails further calls fast while it backs off and tries again later; when it
 *       answers again sharing resumes. The pacer logs the outage (one {@code WARNING} naming
 *       the failure's cause, one {@code INFO} when sharing resumes, at most one {@code WARNING}
 *       a minute), so a store's own lines about it belong at {@code DEBUG}.
 *   <li><b>Expiry.</b> Nothing a store keeps outlives its use: a count expires after its reset
 *       (plus one window, to start the next), a lease with the window it was taken in (its
 *       {@code validUntil} is never after the reset), a hold at its end, a learned rate after a
 *       day, an instance after missing its heartbeat.
 *   <li><b>Hostile values.</b> Whatever the store returns is validated like a header: a value out
 *       of bounds or of the wrong shape (written by another version, edited by hand) is ignored
 *       and logged, never thrown.
 * </ul>
 *
 * <p>Implementations must be thread-safe.
 */
public interface QuotaStore extends AutoCloseable {
  /**
   * Records a count the server reported. The stored count is replaced unless it was observed
   * later than {@code count}; units sent at or before {@code count.observedAt()} ({@link
   * #spent}), and units of leases that ended by then, are dropped from the units taken.
   *
   * @param key the key
   * @param count the count the server reported
   * @return a stage with the shared state after the update
   */
  CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count);

  /**
   * Records a count the server reported, as {@link #observe(QuotaKey, ServerCount)} does, and
   * that {@code units} of {@code lease}, sent at {@code sentAt}, are in it (the request whose
   * response carried the count): they leave the lease, and are taken no more when this count is
   * the one in force after the update (else they are kept as units sent at {@code sentAt}, as
   * {@link #spent} does). Atomic.
   *
   * @param key the key
   * @param count the count the server reported
   * @param lease the lease the request's units came from
   * @param sentAt when the request was sent
   * @param units units of the request that carried the count; at least 0
   * @return a stage with the shared state after the update
   * @throws IllegalArgumentException if {@code units} is negative
   */
  CompletionStage<SharedQuota> observe(QuotaKey key, ServerCount count, Lease lease, long units,
      Instant sentAt);

  /**
   * Takes between {@code minUnits} and {@code maxUnits} units from the fleet's budget, or none.
   * None when a hold is in force, or when fewer than {@code minUnits} are available. Without a
   * shared count (none observed yet, or expired) the store grants {@code maxUnits}, bounded by
   * its own lease bounds, and the pacer paces those units locally; except at first contact
   * while another instance is seen: then the first such lease is the fleet's probe, of {@code
   * minUnits}, and further leases are refused (their {@code validUntil} the probe's end) until a
   * count arrives, units of the key are reported ({@link #spent}, {@link #release}: an answer
   * without a count), or the probe's lease duration has passed. A refusal's {@code validUntil}
   * says when to ask again: the hold's end, the probe's, the reset of a spent count of a window
   * (fewer than {@code minUnits} left, no refill rate) on a key that showed it gives its whole
   * quota back at its reset; in a window the store started itself whose probes go only as the
   * quota per window gives them back, when it has given back the probes' units taken and these
   * (at most the lease duration after the window started); with a refill rate, this instance's
   * turn: when the rate has given the units back, after the turns told to the instances refused
   * before it (one refill of their units each), never further off than one refill per instance
   * seen; else the call's own instant (the store cannot tell). This call also tells the store
   * that this instance is alive (its heartbeat); refused until a spent window's reset, the
   * instance is counted until a heartbeat after it, for which it waits without calling.
   *
   * @param key the key
   * @param minUnits the fewest units worth having (the cost of the request at hand); at least 1
   * @param maxUnits the most units wanted; at least {@code minUnits}
   * @return a stage with the lease (0 units granted when refused)
   * @throws IllegalArgumentException if {@code minUnits} or {@code maxUnits} is out of bounds
   */
  CompletionStage<Lease> lease(QuotaKey key, long minUnits, long maxUnits);

  /**
   * Records that {@code units} of a lease were sent, the last of them at {@code lastSentAt}: they
   * leave the lease. A count observed at or after {@code lastSentAt} holds them, so they are
   * dropped then (at once, when the stored count was observed at or after it); until then they
   * stay taken. Reporting more units than the lease holds, or to a lease the store has already
   * dropped, is harmless.
   *
   * @param lease the lease the units came from
   * @param units units sent; at least 0
   * @param lastSentAt when the last of them was sent
   * @return a stage with the shared state after the update
   * @throws IllegalArgumentException if {@code units} is negative
   */
  CompletionStage<SharedQuota> spent(Lease lease, long units, Instant lastSentAt);

  /**
   * Gives back units of a lease that were not spent. Returning more than the lease holds, or
   * returning to a lease the store has already dropped (its count was replaced, its window
   * ended), is harmless.
   *
   * @param lease the lease the units came from
   * @param unusedUnits units not spent; at least 0
   * @return a stage with the shared state after the return
   * @throws IllegalArgumentException if {@code unusedUnits} is negative
   */
  CompletionStage<SharedQuota> release(Lease lease, long unusedUnits);

  /**
   * Holds the fleet until {@code until} (a {@code Retry-After}, a 429): leases are refused until
   * then. A hold only ever extends an existing one. Holds longer than a day are cut to a day.
   *
   * @param key the key
   * @param until the end of the hold
   * @return a stage with the shared state after the update
   */
  CompletionStage<SharedQuota> hold(QuotaKey key, Instant until);

  /**
   * Ends the fleet's hold because the server admitted a request sent during it (the check of a
   * hold longer than {@code maxWait}): the stored hold is removed if it ends within a second of
   * {@code until}, the hold the request checked; another one (a later refusal's) stays.
   *
   * @param key the key
   * @param until the end of the hold the admitted request was sent in
   * @return a stage with the shared state after the update
   */
  CompletionStage<SharedQuota> lift(QuotaKey key, Instant until);

  /**
   * Records a refill rate learned from outcomes or announced policies. The stored rate is replaced unless it was learned
   * later.
   *
   * @param key the key
   * @param rate the rate learned
   * @return a stage with the shared state after the update
   */
  CompletionStage<SharedQuota> learnRate(QuotaKey key, RefillRate rate);

  /**
   * Reads the shared state of a key without changing it (beyond expiring what is due).
   *
   * @param key the key
   * @return a stage with the shared state
   */
  CompletionStage<SharedQuota> read(QuotaKey key);

  /**
   * Releases the store's resources (connections it created; not those it was given). Calls after
   * {@code close} fail with a {@link QuotaStoreException}. Idempotent.
   */
  @Override
  void close();

  /**
   * Returns another instance of the fleet on this store: the same shared state (and, for a store
   * with a connection, the same connection) under an instance identity of its own. One store
   * object is one instance of the fleet; a {@code Pacer} built with a store that another open
   * pacer already uses takes one of these, since two pacers that were one instance would each
   * take the other's leased units for its own and send more than the quota. Closing the other
   * instance releases nothing: its resources are this store's.
   *
   * <p>The default throws {@link UnsupportedOperationException}: a store that cannot tell
   * instances apart on one object is given to one open pacer at a time.
   *
   * @return another instance on this store
   * @throws UnsupportedOperationException if this store has one instance per object
   */
  default QuotaStore anotherInstance() {
    throw new UnsupportedOperationException(getClass().getName() + " has one instance per object");
  }
}
