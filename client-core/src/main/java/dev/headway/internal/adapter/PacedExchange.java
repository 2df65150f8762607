package dev.headway.internal.adapter;

import dev.headway.Pacer;
import dev.headway.Permit;
import dev.headway.RateLimitedException;
import dev.headway.RequestInfo;
import dev.headway.Scheduler;
import dev.headway.internal.pacer.BeforeAnyAnswer;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The paced exchange every adapter runs: take a permit, send, hand the response to the permit,
 * and retry a throttled response after the delay the pacer advises, within one wait budget. The
 * adapters only map their client onto {@link Client}; the rules live here once.
 *
 * <p>How one call runs ({@link #run}):
 *
 * <ol>
 *   <li>The request is described ({@link Client#describe}) and its first permit taken within
 *       {@code maxWait} ({@link Client#acquire}). Nothing is sent while waiting.
 *   <li>It is sent ({@link Client#send}); the client hands status, fields and, when asked, a
 *       bounded body hint to the {@link Attempt}, which completes the permit and decides on a
 *       retry. If sending fails, the permit is given back and the failure goes to the caller.
 *   <li>A response to retry is kept ({@link Client#keep}: its body held in memory up to
 *       {@link BodyHints#KEEP_BYTES}, or left on its connection) while the call waits the delay
 *       and then takes the retry's permit within what is left of the budget. With the permit in
 *       hand, the kept response is dropped and the request sent again; without it, the kept
 *       response goes to the caller ({@link Client#deliver}): a retry never turns a 429 into an
 *       exception.
 * </ol>
 *
 * <p>The client's timeout, for every client: a call held while the server had answered nothing
 * yet on its partition (no response, no error, no timeout: the probes of first contact hold the
 * others back) keeps its client's timeout counted from the call. The time it was held is taken
 * off the client's timeout for that first send ({@link Attempt#timeout}), never below
 * {@link Attempt#MIN_TIMEOUT}: against a server that never answers, every caller fails as soon as
 * it would without Headway. A wait after the server answered (a spent window, a
 * {@code Retry-After}) or for a limit the client declared changes no timeout: it is the wait the
 * caller allowed with {@code maxWait}.
 *
 * <p>The failure rules, for every client:
 *
 * <ul>
 *   <li>A closed {@link Pacer}: the call fails with an {@link IOException} and nothing is sent.
 *   <li>A failure of Headway's own code, or of user code it calls ({@link RuntimeException} or
 *       {@link LinkageError}): before the first send, the call goes out unpaced
 *       ({@link Client#sendUnpaced}); after, the response goes to the caller as it is. Either way
 *       it is logged ({@link Swallowed}) and every permit is given back.
 *   <li>The first permit past {@code maxWait}: {@link RateLimitedException} (an
 *       {@link IOException}), nothing sent. An interrupt or a cancelled call ends a wait at once
 *       with the client's own exception ({@link Client#acquire}, {@link Client#sleep}).
 * </ul>
 *
 * <p>Nested adapters: a call that an adapter of Headway's outside this one already paces on this
 * thread (the same method and URI) is sent once, without a permit or a retry of its own
 * ({@link PacedOutside}).
 *
 * <p>One per call; the exchange's state is used by the calling thread, and by the client's
 * threads only through {@link Attempt}.
 */
public final class PacedExchange {
  private final Pacer pacer;
  private final RequestInfo info;
  private final boolean replayable;
  private final Duration maxWait;
  private final int maxAttempts;
  private final long startNanos;
  private @Nullable CallBudget budget;

  private PacedExchange(Pacer pacer, RequestInfo info, boolean replayable, Duration maxWait,
      int maxAttempts) {
    this.pacer = pacer;
    this.info = info;
    this.replayable = replayable;
    this.maxWait = maxWait;
    this.maxAttempts = maxAttempts;
    this.startNanos = pacer.ticker().read();
  }

  /**
   * What every client, synchronous or not, tells the exchange about its messages.
   *
   * @param <R> the client's response type (or the adapter's per-attempt outcome)
   */
  public interface Messages<R> {
    /** Describes the request to the pacer, by {@link RequestDescriptions}' rule. */
    RequestInfo describe();

    /** Returns whether the request (its body) can be sent a second time. */
    boolean replayable();

    /**
     * Reads {@code response} for {@code attempt} if sending did not: hands status, fields and a
     * bounded body hint to {@link Attempt#complete}, and returns the response the caller gets
     * from now on (one whose body was read ahead, for instance). A failure in here is Headway's:
     * the permit goes back and the response goes to the caller as it was.
     */
    default R read(R response, Attempt attempt) throws IOException {
      return response;
    }

    /**
     * Returns what to keep of a throttled {@code response} while the call waits to retry: its body
     * read into memory up to {@link BodyHints#KEEP_BYTES} and its connection freed, or left on its
     * connection. The result replaces {@code response}.
     */
    R keep(R response);

    /**
     * Returns whether {@code kept} cannot be let go of without waiting for its body (still
     * arriving): it then goes to the caller as it is, not retried. Only a client that cannot
     * close such a body before it sends again says so (OkHttp's chain refuses a second
     * {@code proceed} while the first body is open, and only the read-ahead's own thread may
     * close it); the others retry, and {@link #discard} closes the body's connection rather than
     * waiting for the body.
     */
    default boolean stillReading(R kept) {
      return false;
    }

    /**
     * Drops a kept response: the retry is going out (or the call ended). Also drops, on the
     * asynchronous path, a response that arrived as the caller cancelled the call. A body still
     * arriving is closed, never read to its end. Never throws.
     */
    void discard(R kept);
  }

  /**
   * What a blocking HTTP client does for a paced exchange: the only code an adapter writes
   * around {@link #run}.
   *
   * @param <R> the client's response type (or the adapter's per-attempt outcome)
   */
  public interface Client<R> extends Messages<R> {
    /**
     * Sends the request once. As soon as the response's status and fields are known, the client
     * hands them (and a body hint if {@link Attempt#readsBody} asks) to
     * {@link Attempt#complete}; a client that reads them after {@code send} returns does so in
     * {@link #read}.
     */
    R send(Attempt attempt) throws IOException, InterruptedException;

    /** Sends the request as it would go without Headway: Headway failed before it was sent. */
    R sendUnpaced() throws IOException, InterruptedException;

    /**
     * Sends the request that an adapter of Headway's outside this one already paces on this
     * thread ({@link PacedOutside}): once, without a permit or a retry of its own. By default as
     * {@link #sendUnpaced}; a client whose own retries leave Headway's decisions alone says here
     * that this one is Headway's too.
     */
    default R sendPacedOutside() throws IOException, InterruptedException {
      return sendUnpaced();
    }

    /** Returns the kept response to the caller after all: the retry could not get its permit. */
    default R deliver(R kept) throws IOException, InterruptedException {
      return kept;
    }

    /**
     * Takes a permit within {@code maxWait}, waiting as this client waits (interruptible, or
     * ending when the call is cancelled).
     *
     * @throws RateLimitedException if the permit would need a longer wait
     */
    default Permit acquire(Pacer pacer, RequestInfo info, Duration maxWait)
        throws IOException, InterruptedException {
      return pacer.acquire(info, maxWait);
    }

    /** Waits {@code delay} on {@code scheduler}, as {@link #acquire} waits. */
    default void sleep(Scheduler scheduler, Duration delay)
        throws IOException, InterruptedException {
      scheduler.sleep(delay);
    }
  }

  /**
   * What a non-blocking HTTP client does for a paced exchange: the only code an adapter writes
   * around {@link #runAsync}. No method may block.
   *
   * @param <R> the client's response type (or the adapter's per-attempt outcome)
   */
  public interface AsyncClient<R> extends Messages<R> {
    /** Sends the request once, as {@link Client#send} does, without blocking. */
    CompletableFuture<R> send(Attempt attempt);

    /** Sends the request as it would go without Headway: Headway failed before it was sent. */
    CompletableFuture<R> sendUnpaced();

    /** Sends the request an adapter outside this one already paces, as {@link Client} does. */
    default CompletableFuture<R> sendPacedOutside() {
      return sendUnpaced();
    }

    /** Returns the kept response to the caller after all: the retry could not get its permit. */
    default CompletableFuture<R> deliver(R kept) {
      return CompletableFuture.completedFuture(kept);
    }
  }

  /**
   * Runs one call through {@code client} with {@code pacer}, as the class describes, and returns
   * the response the caller gets.
   *
   * @param maxWait the longest the call may wait in all, permits and retry delays together
   * @param maxAttempts the most attempts the call may make, the first included
   * @throws RateLimitedException if the first permit would need a wait past {@code maxWait}
   * @throws IOException if the pacer is closed (nothing sent), or whatever the client throws
   * @throws InterruptedException as the client's waits and sends throw it
   */
  public static <R> R run(Pacer pacer, Duration maxWait, int maxAttempts, Client<R> client)
      throws IOException, InterruptedException {
    PacedExchange call;
    try {
      call = new PacedExchange(pacer, client.describe(), client.replayable(), maxWait,
          maxAttempts);
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(Permits.LOGGER, "describing a request", e);
      return client.sendUnpaced(); // A request Headway cannot describe goes out unpaced.
    }
    if (PacedOutside.pacing(call.info)) {
      return client.sendPacedOutside(); // an adapter of Headway's outside this one paces it
    }
    RequestInfo outer = PacedOutside.mark(call.info);
    try {
      Permit permit;
      try {
        permit = client.acquire(pacer, call.info, maxWait); // the budget just started: all left
      } catch (RuntimeException | LinkageError e) {
        IOException closed = Permits.closed(pacer, e);
        if (closed != null) {
          throw closed; // a closed pacer fails its calls rather than sending them unpaced
        }
        Swallowed.log(Permits.LOGGER, "acquiring a permit", e);
        PacedOutside.restore(outer);
        return client.sendUnpaced(); // Headway itself failed: the call goes out without it.
      }
      return call.attempts(client, permit);
    } finally {
      PacedOutside.restore(outer);
    }
  }

  /**
   * Runs one call through the non-blocking {@code client}, as {@link #run} does: no thread waits
   * meanwhile (each wait is a task of the pacer's {@link Scheduler}). Cancelling or completing
   * the returned future ends the call: a wait ends and sends nothing, a send in flight is
   * cancelled, a permit held goes back and a kept response is dropped.
   *
   * @return the response the caller gets, or the failure {@link #run} would throw
   */
  public static <R> CompletableFuture<R> runAsync(Pacer pacer, Duration maxWait, int maxAttempts,
      AsyncClient<R> client) {
    PacedExchange call;
    try {
      call = new PacedExchange(pacer, client.describe(), client.replayable(), maxWait,
          maxAttempts);
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(Permits.LOGGER, "describing a request", e);
      return client.sendUnpaced(); // A request Headway cannot describe goes out unpaced.
    }
    if (PacedOutside.pacing(call.info)) {
      return client.sendPacedOutside(); // an adapter of Headway's outside this one paces it
    }
    return new AsyncAttempts<>(call, client).start();
  }

  private <R> R attempts(Client<R> client, Permit first) throws IOException, InterruptedException {
    Permit permit = first;
    for (int number = 1; ; number++) {
      Attempt attempt = attempt(permit, number);
      R response;
      try {
        response = client.send(attempt);
      } catch (IOException | InterruptedException | RuntimeException | Error e) {
        attempt.release();
        throw e;
      }
      try {
        response = client.read(response, attempt);
      } catch (IOException | RuntimeException | LinkageError e) {
        Swallowed.log(Permits.LOGGER, "reading a response's rate-limit signals", e);
        attempt.release();
        return response; // Headway failed on this response: the caller gets it.
      }
      Optional<Duration> delay = attempt.retryDelay();
      if (delay.isEmpty()) {
        attempt.release(); // a client that never completed it (no status): the permit goes back
        return response;
      }
      R kept;
      try {
        kept = client.keep(response);
        if (client.stillReading(kept)) {
          return kept;
        }
      } catch (RuntimeException | LinkageError e) {
        Swallowed.log(Permits.LOGGER, "keeping a throttled response for a retry", e);
        return response;
      }
      Optional<Permit> next = nextPermit(client, delay.get(), kept);
      if (next.isEmpty()) {
        return client.deliver(kept);
      }
      client.discard(kept);
      permit = next.get();
    }
  }

  /**
   * Waits {@code delay}, then takes the retry's permit within what is left of the budget; empty
   * if it cannot be had in time (or Headway failed): the kept response is then the answer. An
   * interrupt or a cancelled call drops the kept response and ends the call.
   */
  private <R> Optional<Permit> nextPermit(Client<R> client, Duration delay, R kept)
      throws IOException, InterruptedException {
    try {
      client.sleep(pacer.scheduler(), delay);
      return Optional.of(client.acquire(pacer, info, budget().remaining()));
    } catch (RateLimitedException e) {
      return Optional.empty();
    } catch (RuntimeException | LinkageError e) {
      Swallowed.log(Permits.LOGGER, "waiting for a retry's permit", e);
      return Optional.empty();
    } catch (IOException | InterruptedException | Error e) {
      client.discard(kept);
      throw e;
    }
  }

  /**
   * Returns the attempt numbered {@code number} (the first is 1), sent with {@code permit}. A
   * first permit granted before the server answered anything on its partition carries how long
   * the call was held for it ({@link Attempt#timeout}); any other, nothing.
   */
  Attempt attempt(Permit permit, int number) {
    long heldNanos = 0;
    if (number == 1 && BeforeAnyAnswer.granted(permit)) {
      heldNanos = Math.max(0, pacer.ticker().read() - startNanos);
    }
    return new Attempt(this, permit, number, heldNanos);
  }

  /** Returns the pacer of this call. */
  Pacer pacer() {
    return pacer;
  }

  /** Returns the request as the pacer sees it. */
  RequestInfo info() {
    return info;
  }

  /** Returns whether the request can be sent again. */
  boolean replayable() {
    return replayable;
  }

  /** Returns the most attempts the call may make, the first included. */
  int maxAttempts() {
    return maxAttempts;
  }

  /**
   * Returns the call's wait budget: {@code maxWait} from the call's start, for permits and retry
   * delays together. Made when first asked (a retry, an asynchronous wait): most calls never
   * need it.
   */
  CallBudget budget() {
    CallBudget b = budget;
    if (b == null) {
      b = CallBudget.startedAt(pacer.ticker(), startNanos, maxWait);
      budget = b;
    }
    return b;
  }
}
