package dev.headway.pacer;

import static dev.headway.pacer.SlidingLogServersTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.pacer.SlidingLogServersTest.Flask;
import dev.headway.pacer.SlidingLogServersTest.Server;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reset that trails our own requests: Flask-Limiter's moving window gives its reset as when
 * its newest unit leaves, so each request spread after a burst moves the reset on by the time
 * since the one before, while the burst's units leave a window after they went. Eight closed-loop
 * callers in virtual time through the real header parsers, 20 per 4 s, the server counting.
 */
@Timeout(60)
class TrailingResetTest {
  private static long admittedIn(Server server, long fromWindow, long toWindow) {
    return server.admitted.stream().filter(
        t -> t >= fromWindow * server.windowNanos && t < toWindow * server.windowNanos).count();
  }

  /**
   * The first window's burst is followed by its tail, spread towards the reset; each of the
   * tail's answers moved the reset held on by the time since the request before it, and the
   * client waited for the last: the second window went by with nothing sent (20 0 20 20 14 13
   * ..., the real server's 88%). A later reset that moved on by the time between our requests
   * while the count dropped by exactly our own units is the newest unit's: the reset held
   * stays, and what it counted is back then (19 19 20 17 18 20 ..., 298 of 300).
   */
  @Test
  void aSlidingLogsSecondWindowIsNotWaitedOut() {
    for (long start : new long[] {0, 470, 990}) {
      Server server = flask(start, 1);
      String what = describe("flask", start, server);
      assertThat(admittedIn(server, 1, 2)).as(what + "; in the second window")
          .isGreaterThanOrEqualTo(15);
      assertThat(admittedIn(server, 0, 15)).as(what + "; in fifteen windows")
          .isGreaterThanOrEqualTo(285);
      assertThat(server.refused).as(what + "; 429s").isEmpty();
    }
  }

  /**
   * The same with each request costing 2 of 40 units: the run's drops are its requests' cost
   * once that is learned from the counts (by the end of the first burst). The second window
   * was waited out (20 0 19 19 20 14 18 ..., 269 of 300); now 20 16 3 19 20 14 19 ..., 271: the
   * third window is left short (the known shortfall of its spread cursor, see the log's tests).
   */
  @Test
  void aSlidingLogsSecondWindowIsNotWaitedOutAtCostTwo() {
    for (long start : new long[] {0, 470, 990}) {
      Server server = flask(start, 2);
      String what = describe("flask cost 2", start, server);
      assertThat(admittedIn(server, 1, 2)).as(what + "; in the second window")
          .isGreaterThanOrEqualTo(10);
      assertThat(admittedIn(server, 0, 15)).as(what + "; in fifteen windows")
          .isGreaterThanOrEqualTo(269);
      assertThat(server.refused).as(what + "; 429s").isEmpty();
    }
  }

  private static Server flask(long startMillis, int cost) {
    return run(clock -> new Flask(clock, 20, Duration.ofSeconds(4), cost), startMillis, 8,
        Duration.ofSeconds(60));
  }

  /** The admitted requests of each window; printed with {@code -Dtrailing.trace=true}. */
  private static String describe(String name, long start, Server server) {
    StringBuilder windows = new StringBuilder();
    for (long w = 0; w < 15; w++) {
      windows.append(admittedIn(server, w, w + 1)).append(' ');
    }
    String what = name + ", start " + start + " ms, admitted by window: " + windows
        + server.refused.size() + " refused";
    if (Boolean.getBoolean("trailing.trace")) {
      System.out.println(what);
    }
    return what;
  }
}
