package dev.headway.benchmarks.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Turns simulation results into a markdown report and an SVG chart. Pure functions of the
 * results; not thread-safe only in that it holds none.
 */
public final class Report {
  private Report() {}

  /** Returns the markdown: summary per client, targets, then every scenario in full. */
  public static String markdown(List<Result> results, List<String> clients, String headwayPrefix,
      String setup) {
    StringBuilder md = new StringBuilder();
    md.append("# Goodput simulation\n\n").append(setup).append("\n\n");
    md.append("## Summary per client\n\n");
    md.append(summary(results, clients, r -> r.scenario().singleInstance()
        && r.scenario().style().advertisesQuota(), "single instance, quota headers"));
    md.append(summary(results, clients, r -> r.scenario().singleInstance()
        && !r.scenario().style().advertisesQuota(), "single instance, Retry-After only / none"));
    md.append(summary(results, clients, r -> !r.scenario().singleInstance()
        && r.scenario().instances() <= 10, "2 to 10 instances sharing a key"));
    md.append(summary(results, clients, r -> r.scenario().instances() > 10,
        "50 instances sharing a key"));
    md.append("## Targets\n\n").append(targets(results, clients, headwayPrefix)).append('\n');
    md.append("## Every scenario\n\n");
    md.append(SCORE_LEGEND);
    md.append(scenarioTable(results));
    return md.toString();
  }

  /** Returns a table of the clients' aggregate figures over the results that pass filter. */
  public static String summary(List<Result> results, List<String> clients,
      Predicate<Result> filter, String title) {
    StringBuilder md = new StringBuilder();
    md.append("**").append(title).append("**\n\n");
    md.append("| client | scenarios | mean goodput % | min goodput % | mean 429 % | max 429 % "
        + "| mean failed % | mean late % | mean goodput - 429 | mean score | best in |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    Map<Scenario, List<Result>> grouped = byScenario(results.stream().filter(filter).toList());
    for (String client : clients) {
      List<Result> mine = results.stream().filter(filter)
          .filter(r -> r.client().equals(client)).toList();
      if (mine.isEmpty()) {
        continue;
      }
      long bestIn = grouped.values().stream().filter(rs -> rs.stream()
          .anyMatch(r -> r.client().equals(client) && isBest(r, rs))).count();
      md.append(String.format(Locale.ROOT,
          "| %s | %d | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %d |%n",
          client, mine.size(),
          mine.stream().mapToDouble(Result::goodputPct).average().orElse(0),
          mine.stream().mapToDouble(Result::goodputPct).min().orElse(0),
          mine.stream().mapToDouble(Result::throttledPct).average().orElse(0),
          mine.stream().mapToDouble(Result::throttledPct).max().orElse(0),
          mine.stream().mapToDouble(Result::failedPct).average().orElse(0),
          mine.stream().mapToDouble(Result::latePct).average().orElse(0),
          mine.stream().mapToDouble(Result::goodputMinus429).average().orElse(0),
          mine.stream().mapToDouble(Result::score).average().orElse(0), bestIn));
    }
    return md.append('\n').toString();
  }

  /** Returns the targets, checked for each Headway client, as a markdown list. */
  public static String targets(List<Result> results, List<String> clients, String headwayPrefix) {
    StringBuilder md = new StringBuilder();
    Map<Scenario, List<Result>> grouped = byScenario(results);
    for (String client : clients) {
      if (!client.startsWith(headwayPrefix)) {
        continue;
      }
      List<Result> target = results.stream().filter(r -> r.client().equals(client)
          && r.scenario().singleInstance() && r.scenario().style().advertisesQuota()).toList();
      List<Result> misses = target.stream()
          .filter(r -> r.goodputPct() < 98.0 || r.throttledPct() > 0.1).toList();
      md.append(String.format(Locale.ROOT,
          "- **%s**: >= 98%% goodput with <= 0.1%% 429s in %d of %d single-instance scenarios "
              + "with quota headers",
          client, target.size() - misses.size(), target.size()));
      if (!misses.isEmpty()) {
        md.append("; misses: ");
        List<String> parts = new ArrayList<>();
        for (Result r : misses) {
          parts.add(String.format(Locale.ROOT, "%s (%.1f%%, %.2f%% 429)", r.scenario().label(),
              r.goodputPct(), r.throttledPct()));
        }
        md.append(String.join("; ", parts));
      }
      int beatsAll = 0;
      List<String> losses = new ArrayList<>();
      for (Map.Entry<Scenario, List<Result>> e : grouped.entrySet()) {
        Result mine = e.getValue().stream().filter(r -> r.client().equals(client))
            .findFirst().orElse(null);
        if (mine == null) {
          continue;
        }
        Result bestOther = e.getValue().stream()
            .filter(r -> !r.client().startsWith(headwayPrefix))
            .max((a, b) -> Double.compare(a.score(), b.score())).orElse(null);
        if (bestOther == null || mine.score() > bestOther.score()) {
          beatsAll++;
        } else {
          losses.add(String.format(Locale.ROOT, "%s (%.1f vs %s %.1f)", e.getKey().label(),
              mine.score(), bestOther.client(), bestOther.score()));
        }
      }
      md.append(String.format(Locale.ROOT,
          ". Beats every non-Headway client on score in %d of %d scenarios", beatsAll,
          grouped.size()));
      if (!losses.isEmpty()) {
        md.append("; not in: ").append(String.join("; ", losses));
      }
      md.append(".\n");
    }
    return md.toString();
  }

  /** How the per-scenario tables are to be read. */
  static final String SCORE_LEGEND = "Goodput = admitted / what a perfect client (one that "
      + "knows the server's state) had admitted with the same callers. Failed = calls that "
      + "ended in an error (given up after 429s, or refused locally: the Headway clients' "
      + "`RateLimitedException`) / calls ended. Late = successful calls that waited more than "
      + "twice the perfect client's longest wait plus a round trip / successful calls. "
      + "**Score = 100 - (100 - goodput, capped at 100) - 429 % - failed % - late %**, the "
      + "figure clients are ranked by; goodput - 429 is the previous ranking figure, kept for "
      + "comparison. Delay = from the call's start until its successful request left the "
      + "client. Herd = arrivals in the second after a window boundary / mean arrivals per "
      + "second.\n\n";

  /** Returns whether {@code r} has the best score among {@code all} (ties count as best). */
  static boolean isBest(Result r, List<Result> all) {
    double best = all.stream().mapToDouble(Result::score).max().orElse(0);
    return r.score() >= best - 1e-9;
  }

  /** Returns the table of every scenario and client. */
  static String scenarioTable(List<Result> results) {
    StringBuilder md = new StringBuilder();
    md.append("| scenario | client | goodput % | 429s | 429 % | failed calls | refused locally "
        + "| failed % | late % | goodput - 429 | score | mean delay ms | p99 delay ms | herd |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Scenario, List<Result>> e : byScenario(results).entrySet()) {
      for (Result r : e.getValue()) {
        md.append(String.format(Locale.ROOT,
            "| %s | %s%s%s | %.1f | %d | %.2f | %d | %d | %.2f | %.2f | %.1f | %.1f | %.0f | %.0f "
                + "| %.1f |%n",
            e.getKey().label(), r.client(), isBest(r, e.getValue()) ? " **best**" : "",
            r.truncated() ? String.format(Locale.ROOT, " (cut at %.0f s)",
                r.truncatedNanos() / 1e9) : "",
            r.goodputPct(), r.throttled(), r.throttledPct(), r.callsFailed(), r.callsRefused(),
            r.failedPct(), r.latePct(), r.goodputMinus429(), r.score(), r.meanDelayMs(),
            r.p99DelayMs(), r.herd()));
      }
    }
    return md.toString();
  }

  static Map<Scenario, List<Result>> byScenario(List<Result> results) {
    Map<Scenario, List<Result>> grouped = new LinkedHashMap<>();
    for (Result r : results) {
      grouped.computeIfAbsent(r.scenario(), k -> new ArrayList<>()).add(r);
    }
    return grouped;
  }

  /** Returns results as CSV, one row per scenario and client. */
  public static String csv(List<Result> results) {
    StringBuilder csv = new StringBuilder("model,style,instances,callers,client,allowed,admitted,"
        + "throttled,goodput_pct,throttled_pct,goodput_minus_429,mean_delay_ms,p99_delay_ms,herd,"
        + "failed_calls,refused_calls,succeeded_calls,late_calls,failed_pct,late_pct,score,"
        + "quota,window_s,rtt_ms,phase_ms,duration_s,seed,truncated_s\n");
    for (Result r : results) {
      Scenario s = r.scenario();
      csv.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%s,%d,%d,%d,%.3f,%.4f,%.3f,%.1f,%.1f,"
              + "%.2f,%d,%d,%d,%d,%.4f,%.4f,%.3f,%d,%d,%d,%d,%d,%d,%.3f%n",
          s.scoped() != null ? s.scoped() : s.model(), s.scoped() != null ? "VENDOR" : s.style(),
          s.instances(), s.callers(), r.client(),
          r.allowed(), r.admitted(), r.throttled(), r.goodputPct(), r.throttledPct(),
          r.goodputMinus429(), r.meanDelayMs(), r.p99DelayMs(), r.herd(), r.callsFailed(),
          r.callsRefused(), r.callsSucceeded(), r.lateCalls(), r.failedPct(), r.latePct(),
          r.score(), s.quota(), s.window().toSeconds(), s.rtt().toMillis(), s.phase().toMillis(),
          s.duration().toSeconds(), s.seed(), r.truncatedNanos() / 1e9));
    }
    return csv.toString();
  }

  /**
   * Returns an SVG chart: one panel per load class (single instance, several instances); in
   * each, one group per header style; in each group one bar per client: goodput % (solid) with
   * the 429 share % drawn down from the top in red, both averaged over the group's scenarios.
   */
  public static String svg(List<Result> results, List<String> clients) {
    String[] colors = {"#7f7f7f", "#bcbd22", "#17becf", "#1f77b4", "#2ca02c", "#9467bd",
        "#8c564b", "#e377c2", "#ff7f0e"};
    HeaderStyle[] styles = HeaderStyle.values();
    int barW = 12;
    int groupGap = 22;
    int groupW = clients.size() * barW + groupGap;
    int left = 50;
    int panelW = left + styles.length * groupW + 10;
    int panelH = 230;
    int top = 40;
    int legendH = 20 * ((clients.size() + 2) / 3) + 10;
    int width = Math.max(panelW, 760);
    int height = top + 2 * (panelH + 40) + legendH;
    StringBuilder svg = new StringBuilder();
    svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
        + "height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">%n", width, height));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append("<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Goodput % of what "
        + "the server allows (bar) and 429 share % (red, from the top), by header style"
        + "</text>\n");
    String[] titles = {"one client instance (1, 8, 64 callers; every server algorithm)",
        "2, 5, 10 instances x 4 callers sharing one key"};
    for (int p = 0; p < 2; p++) {
      boolean single = p == 0;
      int y0 = top + p * (panelH + 40);
      int plotTop = y0 + 20;
      int plotH = panelH - 40;
      svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s"
          + "</text>%n", left, y0 + 10, titles[p]));
      for (int g = 0; g <= 100; g += 25) {
        double y = plotTop + plotH - plotH * g / 100.0;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
            + "stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>%n",
            left, panelW, y, y, left - 4, y + 4, g));
      }
      for (int s = 0; s < styles.length; s++) {
        HeaderStyle style = styles[s];
        int gx = left + s * groupW + groupGap / 2;
        for (int c = 0; c < clients.size(); c++) {
          String client = clients.get(c);
          List<Result> rs = results.stream().filter(r -> r.client().equals(client)
              && r.scenario().style() == style && r.scenario().singleInstance() == single
              && r.scenario().instances() <= 10).toList();
          if (rs.isEmpty()) {
            continue;
          }
          double goodput = Math.min(100,
              rs.stream().mapToDouble(Result::goodputPct).average().orElse(0));
          double share = rs.stream().mapToDouble(Result::throttledPct).average().orElse(0);
          int x = gx + c * barW;
          double h = plotH * goodput / 100.0;
          svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" "
              + "height=\"%.1f\" fill=\"%s\"><title>%s, %s: goodput %.1f%%, 429 %.2f%%</title>"
              + "</rect>%n", x, plotTop + plotH - h, barW - 2, h, colors[c % colors.length],
              client, style.label(), goodput, share));
          double rh = plotH * Math.min(100, share) / 100.0;
          if (rh > 0.05) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" "
                + "height=\"%.1f\" fill=\"#d62728\" fill-opacity=\"0.85\"/>%n", x, plotTop,
                barW - 2, Math.max(1, rh)));
          }
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s"
            + "</text>%n", gx + clients.size() * barW / 2, plotTop + plotH + 15, style.label()));
      }
    }
    int ly = top + 2 * (panelH + 40);
    for (int c = 0; c < clients.size(); c++) {
      int lx = 10 + (c % 3) * 250;
      int y = ly + (c / 3) * 20;
      svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
          + "fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>%n", lx, y, colors[c % colors.length],
          lx + 16, y + 10, escape(clients.get(c))));
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
