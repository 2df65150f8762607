package dev.headway.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every adapter against every real limiter: the cells run {@code interop.parallel} at a time,
 * each with its own server process, pacer and client. After the run the table of what the servers
 * counted is printed and written to {@code target/interop/results.md}.
 *
 * <p>What a cell must show is {@link Expectations}: for a server that advertises its quota, no
 * 429 after the first window and at least 90% of the allowance; for the others, the recorded
 * shortfall, neither gone nor much worse.
 */
@Execution(ExecutionMode.CONCURRENT)
class InteropSuiteTest {
  private static final Semaphore SLOTS =
      new Semaphore(Integer.parseInt(InteropRun.property("interop.parallel")));
  private static final Map<String, Cell> RESULTS = new ConcurrentHashMap<>();

  static Stream<Arguments> cells() {
    Set<String> servers = chosen("interop.servers");
    Set<String> adapters = chosen("interop.adapters");
    List<Arguments> cells = new ArrayList<>();
    for (Limiter limiter : Limiter.values()) {
      for (Adapter adapter : Adapters.ALL) {
        if ((servers.isEmpty() || servers.contains(limiter.id))
            && (adapters.isEmpty() || adapters.contains(adapter.name()))) {
          cells.add(Arguments.of(limiter, adapter));
        }
      }
    }
    assertThat(cells).as("cells chosen by -Dinterop.servers and -Dinterop.adapters").isNotEmpty();
    return spreadOut(cells, Integer.parseInt(InteropRun.property("interop.parallel"))).stream();
  }

  /**
   * The cells in the order they start: those whose server is a JVM of its own (the gateway:
   * seconds of CPU to start, against a fraction of a second for a script) spread evenly over the
   * run after the first {@code parallel} cells, one at a time, instead of starting together. The
   * first cells all start at once, so none of those is a JVM; and together at the end, the JVMs'
   * start made the last round the longest (and under load overran their start limit).
   */
  static List<Arguments> spreadOut(List<Arguments> cells, int parallel) {
    List<Arguments> light = new ArrayList<>();
    List<Arguments> heavy = new ArrayList<>();
    for (Arguments cell : cells) {
      (((Limiter) cell.get()[0]).runtime == Limiter.Runtime.JAVA ? heavy : light).add(cell);
    }
    if (heavy.isEmpty() || light.size() <= parallel) {
      return cells;
    }
    List<Arguments> ordered = new ArrayList<>(light.subList(0, parallel));
    List<Arguments> rest = light.subList(parallel, light.size());
    int step = Math.max(1, rest.size() / heavy.size());
    int next = 0;
    for (Arguments jvm : heavy) {
      ordered.add(jvm);
      int to = Math.min(rest.size(), next + step);
      ordered.addAll(rest.subList(next, to));
      next = to;
    }
    ordered.addAll(rest.subList(next, rest.size()));
    return ordered;
  }

  /** The names listed in a property; empty for "all". */
  private static Set<String> chosen(String property) {
    String value = InteropRun.property(property).strip();
    return value.equals("all") ? Set.of()
        : Arrays.stream(value.split(",")).map(String::strip).collect(Collectors.toSet());
  }

  @ParameterizedTest(name = "{0} × {1}")
  @MethodSource("cells")
  void againstRealLimiter(Limiter limiter, Adapter adapter) throws Exception {
    SLOTS.acquire();
    Cell cell;
    try {
      cell = InteropRun.run(limiter, adapter);
    } finally {
      SLOTS.release();
    }
    RESULTS.put(limiter.id + " " + adapter.name(), cell);
    System.out.println("[interop] " + cell.row());
    Expectations.check(cell);
  }

  @AfterAll
  static void printTable() throws IOException {
    List<Cell> cells = RESULTS.values().stream()
        .sorted(Comparator.<Cell, Integer>comparing(c -> c.limiter().ordinal())
            .thenComparing(c -> Adapters.ALL.stream().map(Adapter::name).toList()
                .indexOf(c.adapter())))
        .toList();
    StringBuilder table = new StringBuilder()
        .append(String.format(
            "Real servers: limit %d per %s, %d windows (%s), %d worker threads%n%n",
            InteropRun.LIMIT, InteropRun.WINDOW, InteropRun.WINDOWS, InteropRun.DURATION,
            InteropRun.WORKERS))
        .append(Cell.HEADER).append('\n');
    for (Cell cell : cells) {
      table.append(cell.row()).append('\n');
    }
    table.append('\n').append("2xx/429s per window:\n");
    for (Cell cell : cells) {
      table.append("- ").append(cell.limiter().id).append(' ').append(cell.adapter())
          .append(": ").append(String.join(" ", cell.perWindow())).append('\n');
    }
    table.append('\n').append("Versions:\n");
    cells.stream().map(c -> "- " + c.limiter().id + ": " + c.version() + "; sends "
        + c.limiter().sends).distinct().forEach(line -> table.append(line).append('\n'));
    Files.createDirectories(Runtimes.WORK);
    Files.writeString(Runtimes.WORK.resolve("results.md"), table);
    System.out.println(table);
  }
}
