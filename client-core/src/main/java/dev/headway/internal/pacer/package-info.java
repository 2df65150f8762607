/**
 * The pacing engine behind {@code dev.headway.Pacer}. Implementation details; not part of the
 * public API and may change without notice. How it decides, and why: docs/pacer.md.
 *
 * <p>The package is flat on purpose: a partition's state is guarded by its monitor, and
 * package-private access keeps every field that monitor guards out of reach of other packages.
 * The map, a line a file, grouped by concern:
 *
 * <p><b>Wiring and front ends</b>
 * <ul>
 *   <li>{@code Engine}: wires the parts below; owns no state.
 *   <li>{@code Acquirer}: blocking, trying and reserving acquires; what a wait or refusal tells.
 *   <li>{@code AsyncAcquire}: one asynchronous acquire, a future woken by the scheduler.
 *   <li>{@code WakeUps}: the asynchronous acquires due at one instant, woken by one task.
 *   <li>{@code PermitImpl}: the permit: cost, partitions, lifecycle, send time, place in line.
 *   <li>{@code BeforeAnyAnswer}: whether a permit was granted before the server answered
 *       anything: the adapters then count the client's timeout from the call.
 *   <li>{@code Admission}: decides whether and when a permit goes, and commits or undoes it.
 *   <li>{@code Decision}: what admission decided: go, look again, reject, cancelled.
 *   <li>{@code Evaluation}: the working state of one decision while its policies are asked.
 *   <li>{@code ResponseReader}: a response into state: out of flight, hold, policies.
 *   <li>{@code RetryAdvisor}: retry advice and backoff within the attempts and the budget, and
 *       the server's retry verdict.
 *   <li>{@code RetryBudgets}: the retry budget of each partition (a token bucket per key).
 *   <li>{@code Snapshots}: immutable snapshots of partitions and their policies.
 * </ul>
 *
 * <p><b>Partition state</b> (guarded by the partition's monitor)
 * <ul>
 *   <li>{@code PartitionStore}: where partitions live, found by key (the seam for elsewhere).
 *   <li>{@code Registry}: the in-memory store, bounded, evicting the least recently used.
 *   <li>{@code Partition}: one key's policies, units in flight, hold, line, commit order.
 *   <li>{@code InFlight}: the units and permits in flight on a partition or a route.
 *   <li>{@code Hold}: the hold after a throttled response, probing, the ramp after a hold.
 *   <li>{@code UnknownServerRamp}: the bound on requests in flight to a server not yet heard.
 *   <li>{@code LongBlocks}: the single check of a block longer than {@code maxWait}.
 *   <li>{@code WaitingLine}: arrival tickets, and the callers waiting for units, in order.
 *   <li>{@code RankedTickets}: the tickets in line for one policy, counted below a ticket in a
 *       few steps.
 * </ul>
 *
 * <p><b>Policies</b>
 * <ul>
 *   <li>{@code PolicyState}: one policy's state and rules: earliest time, commit, snapshot.
 *   <li>{@code ServerPolicy}: a policy a server advertised, and what its responses say.
 *   <li>{@code HeldCount}: the count a server policy holds, and which response set it.
 *   <li>{@code UntakenAnswers}: answers whose counts a held count did not take.
 *   <li>{@code OwnAdmissions}: how many of our requests a server policy admitted lately, by when they were sent.
 *   <li>{@code ServerWindow}: a server policy's window and reset.
 *   <li>{@code InferredWindow}: the window of a count whose headers give none.
 *   <li>{@code RefillPacing}: whether a server policy refills continuously, and its pace.
 *   <li>{@code ServerClock}: a partition's lower bound of the server's clock, learned from the
 *       {@code Date} of its answers, so that resets finer than a second are measured exactly.
 *   <li>{@code SlidingLog}: whether a server policy is a sliding log, from its counts, and when
 *       its units come back.
 *   <li>{@code Retiming}: a count that gives units back at a pace not known: the times already
 *       given follow its answers, and spent, it is not waited out to its reset.
 *   <li>{@code LearnedRate}: a rate learned from a server that throttles without numbers.
 *   <li>{@code TokenBucketPolicy}: a client-declared token bucket.
 *   <li>{@code FixedWindowPolicy}: a client-declared fixed window.
 *   <li>{@code DeclaredPolicies}: the client's declared policies, given to new partitions.
 *   <li>{@code Strategies}: the provided pacing strategies.
 *   <li>{@code Jitters}: the provided jitters; {@code JitterSource}: the engine's randomness.
 * </ul>
 *
 * <p><b>Fleet</b> (a quota shared by instances through a {@code QuotaStore})
 * <ul>
 *   <li>{@code Fleet}: the link to the store: answering or not, backoff, each outage logged once.
 *   <li>{@code GuardedStore}: the user's store as the fleet calls it (a call that throws fails).
 *   <li>{@code StoresInUse}: which stores open pacers use; a second open pacer on one gets
 *       another instance of it.
 *   <li>{@code SharedBudget}: one partition's share of the fleet's quota.
 *   <li>{@code HeldLease}: a lease of the fleet's units this instance holds.
 *   <li>{@code FleetReport}: what a partition's responses tell the fleet.
 *   <li>{@code FleetCount}: a response's count as the fleet shares it.
 *   <li>{@code FleetRate}: how fast a refilling server gives units back, shared.
 *   <li>{@code FleetGuess}: the fleet's pace where the server gives no count.
 *   <li>{@code FleetRamp}: the fleet's bound on requests in flight to a server that said nothing.
 *   <li>{@code FleetShare}: an instance's share of the server's counts while the store is down.
 * </ul>
 *
 * <p><b>Routes and partition keys</b>
 * <ul>
 *   <li>{@code Routes}: a request's route shape (method, path with ids collapsed) and its hash.
 *   <li>{@code Route}: one route of a partition and the server policies that govern it.
 *   <li>{@code RouteTable}: which routes each server policy of a partition governs.
 *   <li>{@code DocumentedRoutes}: the dialects that document which policy governs a route.
 *   <li>{@code ScopedFlight}: what is in flight for a policy that governs only some routes.
 *   <li>{@code DeclaredScope}: a scope the user declared: a policy's method and path pattern.
 *   <li>{@code OriginResolver}: the default partition key, the origin.
 *   <li>{@code CredentialResolver}: origin plus a keyed hash of a credential header.
 *   <li>{@code PartitionNames}: checks partition names and URIs as the resolvers spell them,
 *       and shows a key in texts (an origin, else its origin and a short hash).
 *   <li>{@code Sha256}: the hex SHA-256 prefix that names long or sensitive keys.
 * </ul>
 *
 * <p><b>Configuration, time and user code</b>
 * <ul>
 *   <li>{@code PacerSettings}: what {@code Pacer.Builder} collects: defaults, validation.
 *   <li>{@code EngineConfig}: everything the engine is built from.
 *   <li>{@code Settings}: the configuration as the parts read it, times in nanoseconds.
 *   <li>{@code Time}: saturating nanosecond arithmetic.
 *   <li>{@code SystemScheduler}: the production scheduler, one daemon timer thread.
 *   <li>{@code Callbacks}: where listeners and completed futures run.
 *   <li>{@code EventSink}: where the engine's events go; {@code EventLog}: events to a logger.
 *   <li>{@code DurationText}: how a duration reads in messages, toStrings and log lines.
 *   <li>{@code UserCode}: guards the user's strategy, cost, resolver and jitter.
 *   <li>{@code Swallowed}: logs an exception the pacer must not let through.
 * </ul>
 */
@NullMarked
package dev.headway.internal.pacer;

import org.jspecify.annotations.NullMarked;
