package dev.headway.benchmarks.sim;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits the 429s of the fleet grid's silent cells by when they came (a measuring aid): {@code
 * SilentFleetPhases --grid-seed S [--loads 10x4,50x4] [--client TEXT] [--model TEXT]}. Runs each
 * silent cell ({@code Retry-After} only, no headers) of the grid drawn from {@code S} with the
 * client whose name contains TEXT (default: the shared store client) and prints one line per
 * cell: its 429s at <b>first contact</b> (arriving before the fleet's first 429 could have come
 * back to an instance and reached the store: within a round trip and 2 ms of it), in the rest of
 * the server window of that first 429, in the next window, in the one after, and after those
 * (steady state, with the most in any 10 s of it), then the run's goodput, failed and late calls.
 * Windows are the server's: the fixed window's, and the same 60 s grid for the other models.
 */
public final class SilentFleetPhases {
  private SilentFleetPhases() {}

  /** Runs the cells; see the class comment for arguments. */
  public static void main(String[] args) {
    Long gridSeed = null;
    int[][] loads = SimulatorMain.parseLoads("10x4,50x4");
    String clientText = HeadwayVariants.SHARED;
    String modelText = "";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--grid-seed" -> gridSeed = Long.parseLong(args[++i]);
        case "--loads" -> loads = SimulatorMain.parseLoads(args[++i]);
        case "--client" -> clientText = args[++i];
        case "--model" -> modelText = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (gridSeed == null) {
      throw new IllegalArgumentException("--grid-seed is needed");
    }
    String wanted = clientText;
    ClientKind client = SimulatorMain.clients().stream()
        .filter(c -> c.name().equals(wanted)).findFirst()
        .or(() -> SimulatorMain.clients().stream().filter(c -> c.name().contains(wanted))
            .findFirst())
        .orElseThrow();
    System.out.println("model|style|instances|rtt ms|429s|first contact|rest of its window"
        + "|next window|the one after|steady|steady max per 10 s|goodput %|failed|late");
    long[] sums = new long[6];
    for (ModelKind model : ModelKind.values()) {
      if (!model.label().contains(modelText)) {
        continue;
      }
      for (HeaderStyle style : new HeaderStyle[] {HeaderStyle.RETRY_AFTER, HeaderStyle.NONE}) {
        for (int[] load : loads) {
          Scenario cell = FleetGrid.draw(Scenario.of(model, style, load[0], load[1]), gridSeed);
          Arrivals arrivals = new Arrivals();
          Result r = Simulation.run(cell, client, new PrintStream(arrivals, false,
              StandardCharsets.US_ASCII), Reference.of(cell));
          long[] split = arrivals.split(cell);
          for (int i = 0; i < 6; i++) {
            sums[i] += split[i];
          }
          System.out.printf(Locale.ROOT, "%s|%s|%d|%d|%d|%d|%d|%d|%d|%d|%d|%.1f|%d|%d%n",
              model.label(), style, load[0], cell.rtt().toMillis(), r.throttled(), split[0],
              split[1], split[2], split[3], split[4], split[5], r.goodputPct(), r.callsFailed(),
              r.lateCalls());
        }
      }
    }
    System.out.printf(Locale.ROOT, "all|||||%d|%d|%d|%d|%d|%n", sums[0], sums[1], sums[2],
        sums[3], sums[4]);
  }

  /** Reads the server's lines of a trace ("  12.345 429 ...") and keeps when 429s arrived. */
  private static final class Arrivals extends OutputStream {
    private final StringBuilder line = new StringBuilder();
    private final List<Double> refused = new ArrayList<>();

    @Override
    public void write(int b) {
      if (b == '\n') {
        parse();
        line.setLength(0);
      } else {
        line.append((char) b);
      }
    }

    private void parse() {
      int i = 0;
      while (i < line.length() && line.charAt(i) == ' ') {
        i++;
      }
      int space = line.indexOf(" ", i);
      if (space < 0 || space + 4 > line.length()) {
        return;
      }
      if (line.charAt(space + 1) == '4' && line.charAt(space + 2) == '2'
          && line.charAt(space + 3) == '9' && line.charAt(space + 4) == ' ') {
        refused.add(Double.parseDouble(line.substring(i, space)));
      }
    }

    /** First contact, rest of its window, next window, the one after, steady, steady max/10 s. */
    long[] split(Scenario cell) {
      long[] out = new long[6];
      if (refused.isEmpty()) {
        return out;
      }
      double first = refused.get(0);
      double contactEnd = first + cell.rtt().toMillis() / 1000.0 + 0.002;
      double window = cell.window().toMillis() / 1000.0;
      double origin = -cell.phase().toMillis() / 1000.0;
      long firstWindow = (long) Math.floor((first - origin) / window);
      long[] tens = new long[(int) (cell.duration().toSeconds() / 10 + 2)];
      for (double t : refused) {
        long w = (long) Math.floor((t - origin) / window);
        if (t < contactEnd) {
          out[0]++;
        } else if (w == firstWindow) {
          out[1]++;
        } else if (w == firstWindow + 1) {
          out[2]++;
        } else if (w == firstWindow + 2) {
          out[3]++;
        } else {
          out[4]++;
          int k = (int) Math.min(tens.length - 1, Math.max(0, (long) (t / 10)));
          tens[k]++;
        }
      }
      for (long n : tens) {
        out[5] = Math.max(out[5], n);
      }
      return out;
    }
  }
}
