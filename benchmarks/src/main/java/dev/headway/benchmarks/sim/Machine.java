package dev.headway.benchmarks.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Describes the machine a figure was measured on. */
public final class Machine {
  private Machine() {}

  /** Returns "CPU model, N cores, JDK version, OS". */
  public static String describe() {
    String cpu = "unknown CPU";
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          cpu = line.substring(line.indexOf(':') + 1).trim();
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: keep "unknown CPU"
    }
    return cpu + ", " + Runtime.getRuntime().availableProcessors() + " cores, JDK "
        + System.getProperty("java.version") + ", " + System.getProperty("os.name");
  }
}
