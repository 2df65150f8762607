package dev.headway.benchmarks.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Reports of the random (held-out) scenarios and of the servers with several quotas. Pure
 * functions of the results.
 */
final class HeldOutReport {
  private HeldOutReport() {}

  /**
   * Returns whether {@code r} meets the target for its header style: {@code Retry-After} only and
   * no headers, at most 3% 429s and at least 90% goodput; {@code X-RateLimit-*} (no window), at
   * least 95% goodput and at most 0.5% 429s; full quota headers, at least 98% goodput and at most
   * 0.1% 429s.
   */
  static boolean meetsTarget(Result r) {
    return switch (r.scenario().style()) {
      case RETRY_AFTER, NONE -> r.throttledPct() <= 3.0 && r.goodputPct() >= 90.0;
      case X_EPOCH -> r.goodputPct() >= 95.0 && r.throttledPct() <= 0.5;
      case STRUCTURED, DRAFT02 -> r.goodputPct() >= 98.0 && r.throttledPct() <= 0.1;
    };
  }

  /** Returns the target of {@code style} in words. */
  static String target(HeaderStyle style) {
    return switch (style) {
      case RETRY_AFTER, NONE -> "<= 3% 429s, >= 90% goodput";
      case X_EPOCH -> ">= 95% goodput, <= 0.5% 429s";
      case STRUCTURED, DRAFT02 -> ">= 98% goodput, <= 0.1% 429s";
    };
  }

  /** One group's figures for one client. */
  record Group(String style, String model, int scenarios, int met, int best, int bestOfOthers,
      double goodput, double throttled, double failed, double late, double score) {}

  /** Returns the figures of {@code client} per header style and server model, then overall. */
  static List<Group> groups(List<Result> results, String client, String headwayPrefix) {
    Map<Scenario, List<Result>> byScenario = Report.byScenario(results);
    List<Group> groups = new ArrayList<>();
    for (HeaderStyle style : HeaderStyle.values()) {
      for (ModelKind model : ModelKind.values()) {
        groups.add(group(byScenario, client, headwayPrefix, style.label(), model.label(),
            s -> s.style() == style && s.model() == model));
      }
      groups.add(group(byScenario, client, headwayPrefix, style.label(), "all",
          s -> s.style() == style));
    }
    groups.add(group(byScenario, client, headwayPrefix, "all", "all", s -> true));
    return groups;
  }

  private static Group group(Map<Scenario, List<Result>> byScenario, String client,
      String headwayPrefix, String style, String model, Predicate<Scenario> filter) {
    int n = 0;
    int met = 0;
    int best = 0;
    int bestOfOthers = 0;
    double goodput = 0;
    double throttled = 0;
    double failed = 0;
    double late = 0;
    double score = 0;
    for (Map.Entry<Scenario, List<Result>> e : byScenario.entrySet()) {
      if (!filter.test(e.getKey())) {
        continue;
      }
      Result mine = e.getValue().stream().filter(r -> r.client().equals(client)).findFirst()
          .orElse(null);
      if (mine == null) {
        continue;
      }
      n++;
      met += meetsTarget(mine) ? 1 : 0;
      best += Report.isBest(mine, e.getValue()) ? 1 : 0;
      List<Result> others = new ArrayList<>(e.getValue().stream()
          .filter(r -> !r.client().startsWith(headwayPrefix)).toList());
      others.add(mine);
      bestOfOthers += Report.isBest(mine, others) ? 1 : 0;
      goodput += mine.goodputPct();
      throttled += mine.throttledPct();
      failed += mine.failedPct();
      late += mine.latePct();
      score += mine.score();
    }
    int d = Math.max(1, n);
    return new Group(style, model, n, met, best, bestOfOthers, goodput / d, throttled / d,
        failed / d, late / d, score / d);
  }

  private static String pct(int part, int whole) {
    return whole == 0 ? "-" : String.format(Locale.ROOT, "%d/%d (%.0f%%)", part, whole,
        100.0 * part / whole);
  }

  /** Returns the compact table printed to stdout. */
  static String text(List<Group> groups, String client) {
    StringBuilder out = new StringBuilder();
    out.append(client).append(": per header style and server model\n");
    out.append(String.format(Locale.ROOT, "%-22s %-15s %4s %14s %14s %14s %8s %7s %7s %7s%n",
        "style", "model", "n", "meets target", "best score", "beats others", "goodput", "429%",
        "fail%", "score"));
    for (Group g : groups) {
      if (g.scenarios() == 0) {
        continue;
      }
      out.append(String.format(Locale.ROOT,
          "%-22s %-15s %4d %14s %14s %14s %8.1f %7.2f %7.2f %7.1f%n", g.style(), g.model(),
          g.scenarios(), pct(g.met(), g.scenarios()), pct(g.best(), g.scenarios()),
          pct(g.bestOfOthers(), g.scenarios()), g.goodput(), g.throttled(), g.failed(),
          g.score()));
    }
    return out.toString();
  }

  /** Returns the markdown of a random run. */
  static String randomMarkdown(List<Result> results, List<String> clients, String headwayPrefix,
      String defaultClient, String setup) {
    StringBuilder md = new StringBuilder("# Goodput simulation: random scenarios\n\n");
    md.append(setup).append("\n\n");
    md.append("## ").append(defaultClient).append(", per header style and server model\n\n");
    md.append("Meets target: the target for the header style (Retry-After only / no "
        + "headers: <= 3% 429s and >= 90% goodput; X-RateLimit without a window: >= 95% goodput "
        + "and <= 0.5% 429s; full quota headers: >= 98% goodput and <= 0.1% 429s). Best score: "
        + "its score is the highest of all compared clients (ties count). Beats others: the "
        + "highest among it and the non-Headway clients.\n\n");
    md.append(groupTable(groups(results, defaultClient, headwayPrefix), true));
    md.append("## Every client, every scenario\n\n");
    for (String client : clients) {
      List<Group> all = groups(results, client, headwayPrefix);
      Group g = all.get(all.size() - 1);
      md.append(String.format(Locale.ROOT, "- **%s**: meets its header style's target in %s, "
          + "best score in %s; mean goodput %.1f%%, 429s %.2f%%, failed calls %.2f%%, late %.2f%%, "
          + "score %.1f.%n", client, pct(g.met(), g.scenarios()), pct(g.best(), g.scenarios()),
          g.goodput(), g.throttled(), g.failed(), g.late(), g.score()));
    }
    md.append('\n');
    md.append(Report.summary(results, clients, r -> true, "all random scenarios"));
    md.append(Report.SCORE_LEGEND);
    md.append(Report.scenarioTable(results));
    return md.toString();
  }

  static String groupTable(List<Group> groups, boolean withTarget) {
    StringBuilder md = new StringBuilder();
    md.append("| header style | server model | scenarios |").append(withTarget
        ? " target | meets target |" : "").append(" best score | beats non-Headway | mean goodput "
        + "% | mean 429 % | mean failed % | mean late % | mean score |\n");
    md.append("|---|---|---:|").append(withTarget ? "---|---:|" : "")
        .append("---:|---:|---:|---:|---:|---:|---:|\n");
    for (Group g : groups) {
      if (g.scenarios() == 0) {
        continue;
      }
      String target = "";
      if (withTarget) {
        String t = "-";
        for (HeaderStyle s : HeaderStyle.values()) {
          if (s.label().equals(g.style())) {
            t = target(s);
          }
        }
        target = " " + t + " | " + pct(g.met(), g.scenarios()) + " |";
      }
      boolean total = g.model().equals("all");
      String b = total ? "**" : "";
      md.append(String.format(Locale.ROOT,
          "| %s%s%s | %s%s%s | %d |%s %s | %s | %.1f | %.2f | %.2f | %.2f | %.1f |%n", b,
          g.style(), b, b, g.model(), b, g.scenarios(), target, pct(g.best(), g.scenarios()),
          pct(g.bestOfOthers(), g.scenarios()), g.goodput(), g.throttled(), g.failed(), g.late(),
          g.score()));
    }
    return md.append('\n').toString();
  }

  /** Returns the markdown of the servers with several quotas. */
  static String scopedMarkdown(List<Result> results, String setup) {
    StringBuilder md = new StringBuilder("# Goodput simulation: several quotas on one host\n\n");
    md.append(setup).append("\n\n");
    md.append("Per quota: units spent (requests, or tokens for a token quota) as a share of what "
        + "the perfect client spent with the same callers and mix (\"% of perfect\"), and of the "
        + "quota's capacity over the run (\"% of capacity\": the limit of every window the run "
        + "touches, or a full bucket plus its refill); 429s this quota caused, as a share of all "
        + "requests sent.\n\n");
    for (Map.Entry<Scenario, List<Result>> e : Report.byScenario(results).entrySet()) {
      md.append("## ").append(e.getKey().label()).append("\n\n");
      md.append("| client | quota | admitted | units | % of perfect | % of capacity | 429s "
          + "| 429 % of requests |\n");
      md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
      for (Result r : e.getValue()) {
        for (SimServer.QuotaUse q : r.quotas()) {
          md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.1f | %.1f | %d | %.2f |%n",
              r.client(), q.name(), q.admitted(), q.units(), q.goodputPct(), q.usedPct(),
              q.throttled(), q.throttledPct(r.requests())));
        }
      }
      md.append('\n');
    }
    md.append("## Overall\n\n").append(Report.SCORE_LEGEND).append(Report.scenarioTable(results));
    return md.toString();
  }

  /** Returns per-quota CSV rows of the servers with several quotas. */
  static String scopedCsv(List<Result> results) {
    StringBuilder csv = new StringBuilder("server,instances,callers,client,quota,limit,admitted,"
        + "units,perfect_units,capacity,goodput_pct,used_pct,throttled,throttled_pct_of_requests,"
        + "requests,score\n");
    for (Result r : results) {
      for (SimServer.QuotaUse q : r.quotas()) {
        csv.append(String.format(Locale.ROOT, "%s,%d,%d,%s,%s,%d,%d,%d,%d,%d,%.3f,%.3f,%d,%.4f,"
                + "%d,%.3f%n", r.scenario().scoped(), r.scenario().instances(),
            r.scenario().callers(), r.client(), q.name(), q.limit(), q.admitted(), q.units(),
            q.perfectUnits(), q.capacity(), q.goodputPct(), q.usedPct(), q.throttled(),
            q.throttledPct(r.requests()), r.requests(), r.score()));
      }
    }
    return csv.toString();
  }
}
