package dev.headway.benchmarks.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Small, deterministic simulator runs (virtual time, a second or two of CPU). */
class SimulatorTest {
  private static final Scenario FIXED_STRUCTURED_8 =
      Scenario.of(ModelKind.FIXED_WINDOW, HeaderStyle.STRUCTURED, 1, 8)
          .withDuration(Duration.ofSeconds(180));

  @Test
  void noThrottlingClientIsAnswered429ButUsesTheQuota() {
    Result r = Simulation.run(FIXED_STRUCTURED_8, new NoThrottleClient(3));

    assertThat(r.throttled()).isGreaterThan(1000);
    assertThat(r.admitted()).isEqualTo(r.allowed());
  }

  @Test
  void headwayGetsNo429OnAStructuredFixedWindowAndNearlyAllTheQuota() {
    Result r = Simulation.run(FIXED_STRUCTURED_8, RealTimeCheck.defaultHeadway());

    assertThat(r.throttled()).isZero();
    assertThat(r.goodputPct()).isGreaterThanOrEqualTo(95.0);
    assertThat(r.admitted()).isLessThanOrEqualTo(r.allowed());
  }

  @Test
  void headwayScoresAboveEveryBaseline() {
    Result headway = Simulation.run(FIXED_STRUCTURED_8, RealTimeCheck.defaultHeadway());
    for (ClientKind baseline : new ClientKind[] {new NoThrottleClient(3), new BackoffClient(3),
        new StaticLimiterClient(3)}) {
      assertThat(headway.score())
          .as(baseline.name())
          .isGreaterThan(Simulation.run(FIXED_STRUCTURED_8, baseline).score());
    }
  }

  @Test
  void runsAreDeterministic() {
    Result first = Simulation.run(FIXED_STRUCTURED_8, RealTimeCheck.defaultHeadway());
    Result second = Simulation.run(FIXED_STRUCTURED_8, RealTimeCheck.defaultHeadway());

    assertThat(second).isEqualTo(first);
  }

  @Test
  void perfectClientCountMatchesEachModel() {
    // 180 s starting 23.7 s into a 60 s window touches 4 fixed windows of 100.
    assertThat(Simulation.allowed(FIXED_STRUCTURED_8)).isEqualTo(400);
    // A full bucket of 100 plus 100 per minute for 3 minutes.
    Scenario bucket = Scenario.of(ModelKind.TOKEN_BUCKET, HeaderStyle.NONE, 1, 1)
        .withDuration(Duration.ofSeconds(180));
    assertThat(Simulation.allowed(bucket)).isBetween(399L, 401L);
    // GCRA: a burst of 10, then one per 0.6 s.
    Scenario gcra = Scenario.of(ModelKind.GCRA, HeaderStyle.NONE, 1, 1)
        .withDuration(Duration.ofSeconds(180));
    assertThat(Simulation.allowed(gcra)).isBetween(308L, 310L);
  }

  @Test
  void fixedWindowAdmitsTheQuotaThenAnswers429UntilTheWindowEnds() {
    FixedWindow window = new FixedWindow(3, 10_000_000_000L, 0);

    assertThat(window.admit(1).remaining()).isEqualTo(2);
    window.admit(2);
    Decision third = window.admit(3);
    Decision fourth = window.admit(4);

    assertThat(third.allowed()).isTrue();
    assertThat(third.remaining()).isZero();
    assertThat(fourth.allowed()).isFalse();
    assertThat(fourth.retryAfterNanos()).isEqualTo(10_000_000_000L - 4);
    assertThat(window.admit(10_000_000_000L).allowed()).isTrue();
  }

  @Test
  void structuredStyleRendersThePairAndRetryAfterOn429() {
    Decision throttled = new Decision(false, 0, 1_500_000_000L, 1_500_000_000L);

    var fields = HeaderStyle.STRUCTURED.render(throttled, 100, 60_000_000_000L,
        Simulation.ALIGNED_EPOCH);

    assertThat(fields.firstValue("RateLimit-Policy")).hasValue("\"default\";q=100;w=60");
    assertThat(fields.firstValue("RateLimit")).hasValue("\"default\";r=0;t=2");
    assertThat(fields.firstValue("Retry-After")).hasValue("2");
  }
}
