package dev.headway.benchmarks.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The fixed grid with its free parameters drawn from a seed ({@code --grid-seed}). */
class FleetGridTest {

  @Test
  void aCellsDrawDependsOnlyOnTheSeedAndTheCell() {
    Scenario cell = Scenario.of(ModelKind.SLIDING_WINDOW, HeaderStyle.STRUCTURED, 10, 4);

    Scenario drawn = FleetGrid.draw(cell, 9677);

    assertThat(FleetGrid.draw(cell, 9677)).isEqualTo(drawn);
    assertThat(FleetGrid.draw(cell, 9311)).isNotEqualTo(drawn);
    assertThat(FleetGrid.draw(cell.withLoad(5, 4), 9677).rtt()).isNotEqualTo(drawn.rtt());
    assertThat(drawn.withLoad(10, 4)).isEqualTo(drawn);
  }

  @Test
  void onlyTheRoundTripPhaseAndRunSeedAreDrawn() {
    for (ModelKind model : ModelKind.values()) {
      for (HeaderStyle style : HeaderStyle.values()) {
        for (int[] load : SimulatorMain.LOADS) {
          Scenario cell = Scenario.of(model, style, load[0], load[1]);
          Scenario drawn = FleetGrid.draw(cell, 4242);
          assertThat(drawn.model()).isEqualTo(model);
          assertThat(drawn.style()).isEqualTo(style);
          assertThat(drawn.instances()).isEqualTo(load[0]);
          assertThat(drawn.callers()).isEqualTo(load[1]);
          assertThat(drawn.quota()).isEqualTo(cell.quota());
          assertThat(drawn.window()).isEqualTo(cell.window());
          assertThat(drawn.duration()).isEqualTo(cell.duration());
          assertThat(drawn.rtt()).isBetween(Duration.ofMillis(1), Duration.ofMillis(500));
          assertThat(drawn.phase()).isBetween(Duration.ZERO, cell.window());
          assertThat(drawn.label()).contains("rtt " + drawn.rtt().toMillis() + " ms");
        }
      }
    }
  }

  @Test
  void loadsParseAsInstancesByCallers() {
    assertThat(SimulatorMain.parseLoads("3x4, 20x4"))
        .isDeepEqualTo(new int[][] {{3, 4}, {20, 4}});
    assertThatThrownBy(() -> SimulatorMain.parseLoads("3,4"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
