package dev.headway.interop;

import java.util.List;

/**
 * What one adapter got from one limiter over a run, counted by the server: every request that
 * arrived within {@link InteropRun#DURATION} of the first one (a fixed window starts there too,
 * so the windows counted here are the server's).
 *
 * @param requests requests on the wire
 * @param throttled of those, answered 429
 * @param ok answered 2xx
 * @param allowance what the limiter documents for the run's length
 * @param throttledAfterOneWindow 429s that arrived after the first window
 * @param throttledAfterTwoWindows 429s that arrived after the first two windows
 * @param perWindow per window of the run, "2xx/429s" that arrived in it
 * @param tally what the callers saw
 */
record Cell(Limiter limiter, String adapter, String version, int requests, int throttled, int ok,
    long allowance, int throttledAfterOneWindow, int throttledAfterTwoWindows,
    List<String> perWindow, InteropRun.Tally tally) {

  static Cell of(Limiter limiter, String adapter, String version, List<LimiterServer.Hit> log,
      InteropRun.Tally tally) {
    long end = InteropRun.DURATION.toMillis();
    long window = InteropRun.WINDOW.toMillis();
    int requests = 0;
    int throttled = 0;
    int ok = 0;
    int afterOne = 0;
    int afterTwo = 0;
    int[] okIn = new int[InteropRun.WINDOWS];
    int[] throttledIn = new int[InteropRun.WINDOWS];
    long first = log.isEmpty() ? 0 : log.get(0).atMillis();
    for (LimiterServer.Hit logged : log) {
      LimiterServer.Hit hit = new LimiterServer.Hit(logged.atMillis() - first, logged.status());
      if (hit.atMillis() >= end) {
        continue;
      }
      requests++;
      int windowIndex = (int) (hit.atMillis() / window);
      if (hit.status() / 100 == 2) {
        ok++;
        okIn[windowIndex]++;
      } else if (hit.status() == 429) {
        throttled++;
        throttledIn[windowIndex]++;
        afterOne += hit.atMillis() >= window ? 1 : 0;
        afterTwo += hit.atMillis() >= 2 * window ? 1 : 0;
      }
    }
    List<String> perWindow = new java.util.ArrayList<>();
    for (int i = 0; i < okIn.length; i++) {
      perWindow.add(okIn[i] + "/" + throttledIn[i]);
    }
    return new Cell(limiter, adapter, version, requests, throttled, ok,
        limiter.allowance(InteropRun.LIMIT, InteropRun.WINDOWS), afterOne, afterTwo,
        List.copyOf(perWindow), tally);
  }

  /** Percentage of the requests on the wire that were answered 429. */
  double throttledPercent() {
    return requests == 0 ? 0 : 100.0 * throttled / requests;
  }

  /** Successful requests as a percentage of the documented allowance. */
  double goodputPercent() {
    return 100.0 * ok / allowance;
  }

  /** 429s after the first two windows, per minute of the rest of the run. */
  double throttledPerMinuteAfterTwoWindows() {
    double minutes = InteropRun.WINDOW.multipliedBy(InteropRun.WINDOWS - 2).toMillis() / 60_000.0;
    return throttledAfterTwoWindows / minutes;
  }

  /** One row of the results table. */
  String row() {
    return String.format("| %s | %s | %d | %d | %.1f%% | %d | %.0f%% | %d | %d | %s |",
        limiter.id, adapter, requests, throttled, throttledPercent(), ok, goodputPercent(),
        throttledAfterOneWindow, throttledAfterTwoWindows, callers());
  }

  /** The row and the windows one by one, for a failure message. */
  String detail() {
    return row() + "\n  2xx/429s per window: " + String.join(" ", perWindow);
  }

  private String callers() {
    return tally.calls() + " calls, " + tally.saw429() + " saw 429, " + tally.failedFast()
        + " failed fast, " + tally.errors() + " errors"
        + (tally.firstError() == null ? "" : " (" + tally.firstError() + ")");
  }

  static final String HEADER = "| server | adapter | requests | 429s | 429s % | 2xx | goodput"
      + " | 429s after 1st window | 429s after 2nd window | callers |\n"
      + "|---|---|---:|---:|---:|---:|---:|---:|---:|---|";
}
