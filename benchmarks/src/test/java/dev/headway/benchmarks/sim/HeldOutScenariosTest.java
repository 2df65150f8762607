package dev.headway.benchmarks.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The random scenarios and the score, deterministic and in virtual time. */
class HeldOutScenariosTest {

  @Test
  void theSameSeedDrawsTheSameScenariosAndAnotherSeedOthers() {
    List<Scenario> first = RandomScenarios.draw(50, 2026);
    List<Scenario> again = RandomScenarios.draw(50, 2026);
    List<Scenario> other = RandomScenarios.draw(50, 2027);

    assertThat(again).isEqualTo(first);
    assertThat(other).isNotEqualTo(first);
    assertThat(RandomScenarios.draw(10, 2026)).isEqualTo(first.subList(0, 10));
  }

  @Test
  void drawnScenariosStayWithinTheirRangesAndCoverEveryModelAndStyle() {
    List<Scenario> scenarios = RandomScenarios.draw(300, 1);

    for (Scenario s : scenarios) {
      assertThat(s.quota()).isBetween(5L, 5000L);
      assertThat(s.window()).isBetween(Duration.ofSeconds(1), Duration.ofHours(1));
      assertThat(s.rtt()).isBetween(Duration.ofMillis(1), Duration.ofMillis(500));
      assertThat(s.callers()).isBetween(1, 64);
      assertThat(s.instances()).isEqualTo(1);
      assertThat(s.phase()).isLessThan(s.window());
      long windows = s.duration().toNanos() / s.window().toNanos();
      assertThat(windows).isBetween(3L, 10L);
    }
    assertThat(scenarios).extracting(Scenario::model).contains(ModelKind.values());
    assertThat(scenarios).extracting(Scenario::style).contains(HeaderStyle.values());
    assertThat(scenarios).extracting(Scenario::callers).contains(1, 64);
  }

  @Test
  void aRandomScenarioGivesTheSameResultsWhenRunAgain() {
    Scenario scenario = RandomScenarios.draw(3, 99).get(2);

    Result first = Simulation.run(scenario, RealTimeCheck.defaultHeadway());
    Result second = Simulation.run(scenario, RealTimeCheck.defaultHeadway());

    assertThat(second).isEqualTo(first);
    assertThat(first.requests()).isPositive();
  }

  @Test
  void scoreSubtractsEveryFailureShareFromOneHundred() {
    // goodput 90% (shortfall 10), 429s 5 of 95 requests, failed 10 of 200 calls ended (5%),
    // late 19 of 190 successes (10%).
    Result r = result(100, 90, 5, 10, 0, 190, 19);

    assertThat(r.goodputPct()).isEqualTo(90.0);
    assertThat(r.throttledPct()).isCloseTo(100.0 * 5 / 95, within());
    assertThat(r.failedPct()).isEqualTo(5.0);
    assertThat(r.latePct()).isEqualTo(10.0);
    assertThat(r.score()).isCloseTo(100 - 10 - 100.0 * 5 / 95 - 5 - 10, within());
    assertThat(r.goodputMinus429()).isCloseTo(90 - 100.0 * 5 / 95, within());
  }

  @Test
  void goodputAboveWhatThePerfectClientGotEarnsNothingExtra() {
    Result over = result(100, 110, 0, 0, 0, 110, 0);

    assertThat(over.score()).isCloseTo(100.0, within());
  }

  @Test
  void callsRefusedLocallyCountAsFailedCalls() {
    Result refusing = result(100, 100, 0, 50, 50, 150, 0);

    assertThat(refusing.failedPct()).isCloseTo(25.0, within());
    assertThat(refusing.score()).isCloseTo(75.0, within());
  }

  @Test
  void thePerfectClientScoresOneHundredAndRealClientsLess() {
    Scenario scenario = Scenario.of(ModelKind.TOKEN_BUCKET, HeaderStyle.RETRY_AFTER, 1, 8)
        .withDuration(Duration.ofSeconds(180));

    Result perfect = Simulation.run(scenario, new PerfectClient());
    Result naive = Simulation.run(scenario, new NoThrottleClient(3));

    assertThat(perfect.throttled()).isZero();
    assertThat(perfect.callsFailed()).isZero();
    assertThat(perfect.lateCalls()).isZero();
    assertThat(perfect.score()).isCloseTo(100.0, within());
    assertThat(naive.score()).isLessThan(0);
  }

  @Test
  void aCallHeldFarLongerThanThePerfectClientEverWaitsIsLate() {
    // One caller, 5 per 10 s: the perfect client waits at most one window for a slot. A client
    // that holds every call for 60 s waits more than twice that: every call is late.
    Scenario scenario = new Scenario(ModelKind.FIXED_WINDOW, HeaderStyle.STRUCTURED, 1, 1, 5,
        Duration.ofSeconds(10), Duration.ofSeconds(300), Duration.ofMillis(50), Duration.ZERO, 3);
    ClientKind slow = new ClientKind() {
      @Override
      public String name() {
        return "holds every call 60 s";
      }

      @Override
      public void start(Simulation sim, int instance) {
        call(sim);
      }

      private void call(Simulation sim) {
        long issued = sim.clock().nanos();
        sim.after(60_000_000_000L, () -> sim.send(response -> {
          sim.callSucceeded(issued, response.sentNanos());
          call(sim);
        }));
      }
    };

    Reference reference = Reference.of(scenario);
    Result r = Simulation.run(scenario, slow);

    assertThat(reference.maxDelayNanos()).isLessThanOrEqualTo(10_000_000_000L);
    assertThat(r.callsSucceeded()).isPositive();
    assertThat(r.lateCalls()).isEqualTo(r.callsSucceeded());
    assertThat(r.latePct()).isEqualTo(100.0);
  }

  @Test
  void aFloodingRunEndsEarlyAndIsMeasuredOverTheTimeItRan() {
    Scenario scenario = new Scenario(ModelKind.FIXED_WINDOW, HeaderStyle.NONE, 1, 64, 10,
        Duration.ofSeconds(60), Duration.ofSeconds(600), Duration.ofMillis(2), Duration.ZERO, 5);

    Result r = Simulation.run(scenario, new NoThrottleClient(3));

    assertThat(r.truncated()).isTrue();
    assertThat(r.requests()).isEqualTo(Simulation.MAX_REQUESTS_RANDOM);
    assertThat(r.truncatedNanos()).isLessThan(Duration.ofSeconds(600).toNanos());
    // What the perfect client had in the time simulated: 10 per started window.
    long windows = (r.truncatedNanos() - 1) / 60_000_000_000L + 1;
    assertThat(r.allowed()).isEqualTo(10 * windows);
    assertThat(r.admitted()).isEqualTo(r.allowed());
  }

  private static Result result(long allowed, long admitted, long throttled, long failed,
      long refused, long succeeded, long late) {
    Scenario s = Scenario.of(ModelKind.FIXED_WINDOW, HeaderStyle.NONE, 1, 1);
    return new Result(s, "test", allowed, admitted, throttled, failed, 0, 0, 0, 0, refused,
        succeeded, late, 0, List.of());
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
