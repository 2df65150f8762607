package dev.headway.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * A fuzz test with a planted bug, run only by {@link FuzzRegressionModeTest} (its name is not a
 * test class name, so the build does not run it on its own): it fails on any input containing
 * {@code CRASH}, and its inputs directory holds one such input among harmless ones. That the
 * regression run reports exactly that input as failed shows, in every build, that Jazzer's
 * regression mode reads the inputs directory and turns a finding into a test failure.
 */
class FuzzCanary {
  static final String PLANTED_BUG = "planted bug: the input contains CRASH";

  @FuzzTest
  void plantedBug(byte[] input) {
    if (new String(input, StandardCharsets.ISO_8859_1).contains("CRASH")) {
      throw new IllegalStateException(PLANTED_BUG);
    }
  }
}
