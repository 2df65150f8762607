package dev.headway.pacer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.HttpFields;
import dev.headway.Jitter;
import dev.headway.Pacer;
import dev.headway.PacingStrategy;
import dev.headway.Permit;
import dev.headway.RequestCost;
import dev.headway.RequestInfo;
import dev.headway.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A request that costs the server more than one unit is charged what it costs, once the server
 * has shown it: by the draft proposal's {@code c}, or by a remaining count that drops by that
 * much per request (Flask-Limiter's {@code cost=2}). Counted by how many requests the pacer lets
 * go at once into what is left: the server admits {@code remaining / cost} of them.
 */
class RequestCostLearnedTest {
  static final URI API = URI.create("https://api.example.com/search");
  static final RequestInfo GET = RequestInfo.get(API);
  static final RequestInfo OTHER = RequestInfo.get(URI.create("https://api.example.com/items"));

  private final VirtualClock clock = VirtualClock.create();
  private final Pacer pacer = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
      .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait()).build();

  static HttpFields xRateLimit(long limit, long remaining, long resetSeconds) {
    return HttpFields.of("X-RateLimit-Limit", Long.toString(limit),
        "X-RateLimit-Remaining", Long.toString(remaining),
        "X-RateLimit-Reset", Long.toString(resetSeconds));
  }

  /** Sends one request after another, each answered with the next remaining count. */
  private void answered(RequestInfo request, long limit, long... remaining) throws Exception {
    for (long r : remaining) {
      pacer.acquire(request).complete(200, xRateLimit(limit, r, 60), null);
    }
  }

  /** How many permits go at once (none answered yet), all then released. */
  private int grantedAtOnce(RequestInfo request) {
    List<Permit> granted = new ArrayList<>();
    Optional<Permit> p;
    while (granted.size() < 1000 && (p = pacer.tryAcquire(request)).isPresent()) {
      granted.add(p.get());
    }
    granted.forEach(Permit::release);
    return granted.size();
  }

  @Test
  void aCountThatDropsByTwoPerRequestChargesTwoPerRequest() throws Exception {
    answered(GET, 40, 38, 36, 34, 32, 30, 28, 26);

    assertThat(grantedAtOnce(GET)).isEqualTo(13);
    assertThat(pacer.acquire(GET).cost()).isEqualTo(2);
  }

  @Test
  void theProposalsCostParameterIsChargedFromTheFirstResponse() throws Exception {
    pacer.acquire(GET).complete(200, HttpFields.of("RateLimit-Policy", "\"p\";q=40;w=60",
        "RateLimit", "\"p\";r=36;t=60;c=4"), null);

    assertThat(grantedAtOnce(GET)).isEqualTo(9);
  }

  @Test
  void aCountThatDropsByOneChargesOne() throws Exception {
    answered(GET, 40, 39, 38, 37, 36, 35);

    // 35 left, each charged one; the last is kept for the reset (a count with no window, none of
    // whose resets was seen pass, may be a sliding-window counter: see docs/pacer.md).
    assertThat(grantedAtOnce(GET)).isEqualTo(34);
  }

  @Test
  void oneDropByOneUndoesWhatEvenDropsSuggested() throws Exception {
    answered(GET, 40, 38, 36, 34, 32, 30, 28, 26, 25);

    assertThat(grantedAtOnce(GET)).isEqualTo(25);
  }

  @Test
  void aCountSharedWithAnotherClientThatSpendsIrregularlyChargesOne() throws Exception {
    // Between our requests another client spent 1, 2, 1, 1, 1, 2, 1, 1: drops of 2 and 3.
    answered(GET, 40, 38, 35, 33, 31, 29, 26, 24, 22, 20);

    assertThat(grantedAtOnce(GET)).isEqualTo(20);
  }

  @Test
  void dropsThatSpanTwoRequestsStillShowTheStep() throws Exception {
    // Many callers: a response often comes after two requests were counted (a drop of 4).
    answered(GET, 80, 78, 74, 72, 68, 64, 62, 60, 56, 54, 52, 50);

    assertThat(grantedAtOnce(GET)).isEqualTo(25);
  }

  @Test
  void aNewWindowTeachesNothing() throws Exception {
    // 2 left, then a new window of 40: the rise is a refill, not a cost.
    answered(GET, 40, 3, 2);
    clock.advance(Duration.ofSeconds(60));
    answered(GET, 40, 39, 38, 37);

    assertThat(grantedAtOnce(GET)).isEqualTo(37);
  }

  @Test
  void theCostIsLearnedPerRoute() throws Exception {
    answered(GET, 40, 38, 36, 34, 32, 30, 28, 26);
    answered(OTHER, 40, 25, 24);

    assertThat(pacer.acquire(GET).cost()).isEqualTo(2);
    assertThat(pacer.acquire(OTHER).cost()).isEqualTo(1);
  }

  @Test
  void aConfiguredCostIsKept() throws Exception {
    Pacer configured = Pacer.builder().ticker(clock).wallClock(clock).scheduler(clock)
        .jitter(Jitter.none()).strategy(PacingStrategy.useAllThenWait())
        .cost(new RequestCost() {
          @Override
          public long cost(RequestInfo request) {
            return 1;
          }
        }).build();
    for (long r : new long[] {38, 36, 34, 32, 30, 28, 26}) {
      configured.acquire(GET).complete(200, xRateLimit(40, r, 60), null);
    }

    assertThat(configured.acquire(GET).cost()).isEqualTo(1);
  }
}
