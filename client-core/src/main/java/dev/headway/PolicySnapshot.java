package dev.headway;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The state of one policy of a partition, as a {@link Pacer} knows it. For a server policy,
 * {@code remaining} is the last reported count minus what was spent since (locally counted), minus
 * what is in flight; for a declared token bucket it is the whole units in the bucket and
 * {@code timeToReset} the time until it is full again.
 *
 * <p>After a server policy's reset passed, {@code remaining} is the advertised quota only as an
 * upper bound: until a response from the new window confirms it, the pacer lets only its probes
 * go (draft section 4.1.2). After a throttled response with {@code Retry-After}, a spent
 * policy's {@code timeToReset} is the {@code Retry-After} (it takes precedence, section 7), and
 * once it passes {@code remaining} is empty (unknown) until a probe's response says more.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the policy's name
 * @param limit the quota, if known
 * @param remaining the units remaining (the pacer's estimate), if known
 * @param inFlight units held by permits whose response has not come back
 * @param timeToReset the time until the quota resets, if known
 * @param window the policy's window, if known
 * @param unit what the quota counts
 * @param source the dialect that said so; {@code "client"} for a declared policy, {@code "learned"}
 *     for a rate learned from what a server that says little did
 * @param age how old the information is
 * @param routes the routes this policy is known to govern ({@code GET /repos/{x}/{x}/issues/{n}},
 *     ids collapsed; a scope attribute such as a model in brackets), learned from the responses
 *     that reported it; empty when it governs every request of its partition
 * @param learned whether the pacer learned this policy from what the server did (its 429s,
 *     their holds, how its counts moved) rather than read it in a header: then it is only an
 *     estimate (for a learned pace, {@code limit} is one request per {@code window})
 * @param confidence how much a learned policy is backed by, from 0 (a guess) towards 1 (many
 *     observations agreed); 1 for a policy that was not learned
 */
public record PolicySnapshot(
    String name,
    OptionalLong limit,
    OptionalLong remaining,
    long inFlight,
    Optional<Duration> timeToReset,
    Optional<Duration> window,
    QuotaUnit unit,
    String source,
    Duration age,
    List<String> routes,
    boolean learned,
    double confidence) {

  /**
   * Validates the components.
   *
   * @param name the policy's name
   * @param limit the quota, if known
   * @param remaining the units remaining (the pacer's estimate), if known
   * @param inFlight units held by permits whose response has not come back
   * @param timeToReset the time until the quota resets, if known
   * @param window the policy's window, if known
   * @param unit what the quota counts
   * @param source the dialect that said so; {@code "client"} for a declared policy, {@code "learned"}
   *     for a rate learned from what a server that says little did
   * @param age how old the information is
   * @param routes the routes this policy is known to govern; empty for every request; copied
   * @param learned whether the pacer learned this policy from what the server did
   * @param confidence how much a learned policy is backed by, in [0, 1]; 1 if not learned
   * @throws IllegalArgumentException if {@code confidence} is not in [0, 1]
   */
  public PolicySnapshot {
    if (!(confidence >= 0 && confidence <= 1)) {
      throw new IllegalArgumentException("confidence must be within [0, 1]: " + confidence);
    }
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(limit, "limit must not be null");
    Objects.requireNonNull(remaining, "remaining must not be null");
    Objects.requireNonNull(timeToReset, "timeToReset must not be null");
    Objects.requireNonNull(window, "window must not be null");
    Objects.requireNonNull(unit, "unit must not be null");
    Objects.requireNonNull(source, "source must not be null");
    Objects.requireNonNull(age, "age must not be null");
    routes = List.copyOf(routes);
  }

  /**
   * A policy that governs every request of its partition (no {@code routes}).
   *
   * @param name the policy's name
   * @param limit the quota, if known
   * @param remaining the units remaining (the pacer's estimate), if known
   * @param inFlight units held by permits whose response has not come back
   * @param timeToReset the time until the quota resets, if known
   * @param window the policy's window, if known
   * @param unit what the quota counts
   * @param source the dialect that said so; {@code "client"} for a declared policy, {@code "learned"}
   *     for a rate learned from what a server that says little did
   * @param age how old the information is
   */
  public PolicySnapshot(String name, OptionalLong limit, OptionalLong remaining, long inFlight,
      Optional<Duration> timeToReset, Optional<Duration> window, QuotaUnit unit, String source,
      Duration age) {
    this(name, limit, remaining, inFlight, timeToReset, window, unit, source, age, List.of());
  }

  /**
   * A policy the pacer was told (not learned), with full confidence, that governs
   * {@code routes}.
   *
   * @param name the policy's name
   * @param limit the quota, if known
   * @param remaining the units remaining (the pacer's estimate), if known
   * @param inFlight units held by permits whose response has not come back
   * @param timeToReset the time until the quota resets, if known
   * @param window the policy's window, if known
   * @param unit what the quota counts
   * @param source the dialect that said so; {@code "client"} for a declared policy, {@code "learned"}
   *     for a rate learned from what a server that says little did
   * @param age how old the information is
   * @param routes the routes this policy is known to govern; empty for every request
   */
  public PolicySnapshot(String name, OptionalLong limit, OptionalLong remaining, long inFlight,
      Optional<Duration> timeToReset, Optional<Duration> window, QuotaUnit unit, String source,
      Duration age, List<String> routes) {
    this(name, limit, remaining, inFlight, timeToReset, window, unit, source, age, routes, false,
        1);
  }

  /**
   * Returns this snapshot with {@code routes}.
   *
   * @param routes the routes this policy is known to govern; empty for every request
   * @return a new snapshot, equal to this one but for its routes
   */
  public PolicySnapshot withRoutes(List<String> routes) {
    return new PolicySnapshot(name, limit, remaining, inFlight, timeToReset, window, unit, source,
        age, routes, learned, confidence);
  }

  /**
   * Returns this snapshot marked as learned from what the server did, with {@code confidence}
   * (from 0, a guess, towards 1).
   *
   * @param confidence how much the learned policy is backed by, in [0, 1]
   * @return a new snapshot, equal to this one but learned and with that confidence
   * @throws IllegalArgumentException if {@code confidence} is not in [0, 1]
   */
  public PolicySnapshot asLearned(double confidence) {
    return new PolicySnapshot(name, limit, remaining, inFlight, timeToReset, window, unit, source,
        age, routes, true, confidence);
  }

  /**
   * Returns one readable line, the way the demo prints a policy, e.g.
   * {@code fixed: 25 of 50 requests left per 5 s, resets in 4.9 s, 0 in flight (from
   * ietf-structured, 0.02 s old)}. Unknown values print as {@code ?}; a window or reset that is
   * not known is left out; {@link #routes} follow {@code for}, separated by {@code ", "}; a
   * learned policy says so, with its confidence. A learned rate (a limit and a window, no
   * count) prints as the pace it keeps: {@code learned: paced at 1 request per 0.11 s (9.09 per
   * s), 0 in flight (from retry-after, 0.5 s old, learned, confidence 0.50)}. Durations are in
   * seconds, rounded to two decimals. The format is for people (logs, consoles) and may change;
   * read the components in code.
   */
  @Override
  public String toString() {
    return text(true);
  }

  /**
   * Returns {@link #toString()}'s line, without {@code , N in flight} unless {@code inFlight}
   * (a {@link QuotaSnapshot}'s line says what is sent once, for its partition).
   */
  String text(boolean withInFlight) {
    StringBuilder text = new StringBuilder(name).append(": ");
    if (learned && remaining.isEmpty() && limit.isPresent() && window.isPresent()
        && !window.get().isZero()) {
      text.append(pace(limit.getAsLong(), window.get()));
    } else {
      text.append(Texts.count(remaining)).append(" of ").append(Texts.count(limit))
          .append(' ').append(unit.token()).append(" left");
      window.ifPresent(w -> text.append(" per ").append(Texts.seconds(w)));
    }
    timeToReset.ifPresent(t -> text.append(", resets in ").append(Texts.seconds(t)));
    if (withInFlight) {
      text.append(", ").append(inFlight).append(" in flight");
    }
    if (!routes.isEmpty()) {
      text.append(" for ").append(String.join(", ", routes));
    }
    text.append(" (from ").append(source).append(", ")
        .append(Texts.seconds(age)).append(" old");
    if (learned) {
      text.append(String.format(java.util.Locale.ROOT, ", learned, confidence %.2f", confidence));
    }
    text.append(')');
    return text.toString();
  }

  /** Returns "paced at 1 request per 0.11 s (9.09 per s)": a learned rate, as a pace. */
  private String pace(long units, Duration window) {
    String token = unit.token();
    if (units == 1 && token.endsWith("s")) {
      token = token.substring(0, token.length() - 1);
    }
    double perSecond = units / (window.toNanos() / 1e9);
    String rate = new java.math.BigDecimal(perSecond)
        .round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
    return "paced at " + units + ' ' + token + " per " + Texts.seconds(window) + " (" + rate
        + " per s)";
  }
}
