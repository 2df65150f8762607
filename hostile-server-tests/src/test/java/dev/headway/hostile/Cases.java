package dev.headway.hostile;

import dev.headway.hostile.RawServer.Script;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** The ways the server misbehaves: one {@link Case} each. */
final class Cases {
  private Cases() {}

  /**
   * A way to misbehave.
   *
   * @param pending why the case still fails, if the cause is a known defect of the pacer (not of
   *     the adapters); such a case is not run by the suite (none is at present: every case
   *     the pacer failed now passes)
   * @param calls how many calls the suite makes while the server misbehaves: 2, or more for an
   *     attack on the pacer's state, which only shows over many responses
   * @param admits whether the server admits every request, so that every call must succeed
   */
  record Case(String name, Script script, String pending, int calls, boolean admits) {
    Case(String name, Script script, String pending, int calls) {
      this(name, script, pending, calls, false);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static final String FORTY_DIGITS = "1234567890123456789012345678901234567890";
  static final String KB64 = "9".repeat(64 * 1024);
  static final String FAR_PAST = "Thu, 01 Jan 1970 00:00:00 GMT";
  static final String FAR_FUTURE = "Fri, 31 Dec 9999 23:59:59 GMT";

  /** Header values no server should send. */
  static final List<String[]> VALUES = List.of(
      new String[] {"negative", "-1"},
      new String[] {"NaN", "NaN"},
      new String[] {"40 digits", FORTY_DIGITS},
      new String[] {"1e308", "1e308"},
      new String[] {"Infinity", "Infinity"},
      new String[] {"far past date", FAR_PAST},
      new String[] {"far future date", FAR_FUTURE},
      new String[] {"64 KB", KB64},
      new String[] {"control characters", "1\u0001\u0007\u001b2"},
      new String[] {"empty", ""},
      new String[] {"garbage", "{[\"'\\;=,"},
      new String[] {"99999999", "99999999"});

  static List<Case> all() {
    List<Case> cases = new ArrayList<>();
    headerValues(cases);
    duplicates(cases);
    bodies(cases);
    connections(cases);
    throttling(cases);
    resetsPastTheCap(cases);
    state(cases);
    return cases;
  }

  private static void headerValues(List<Case> cases) {
    for (String[] v : VALUES) {
      String label = v[0];
      String value = v[1];
      add(cases, "429 Retry-After " + label,
          e -> e.write(Http.status(429).header("Retry-After", value).body("slow down")),
          null);
      add(cases, "503 Retry-After " + label,
          e -> e.write(Http.status(503).header("Retry-After", value).body("busy")),
          null);
      add(cases, "200 RateLimit-Remaining 0, RateLimit-Reset " + label,
          e -> e.write(Http.status(200).header("RateLimit-Limit", "10")
              .header("RateLimit-Remaining", "0").header("RateLimit-Reset", value).body("ok")),
          null);
      add(cases, "200 RateLimit-Limit and -Remaining " + label,
          e -> e.write(Http.status(200).header("RateLimit-Limit", value)
              .header("RateLimit-Remaining", value).header("RateLimit-Reset", "1").body("ok")),
          null);
      add(cases, "429 X-RateLimit-Reset " + label,
          e -> e.write(Http.status(429).header("X-RateLimit-Limit", "10")
              .header("X-RateLimit-Remaining", "0").header("X-RateLimit-Reset", value)
              .body("slow down")),
          null);
      add(cases, "200 RateLimit structured r and t " + label,
          e -> e.write(Http.status(200).header("RateLimit", "\"default\";r=" + value + ";t="
              + value).header("RateLimit-Policy", "\"default\";q=10;w=1").body("ok")),
          null);
      add(cases, "200 RateLimit-Policy q and w " + label,
          e -> e.write(Http.status(200).header("RateLimit", "\"default\";r=5;t=1")
              .header("RateLimit-Policy", "\"default\";q=" + value + ";w=" + value).body("ok")),
          null);
    }
    StringBuilder members = new StringBuilder();
    for (int i = 0; i < 10_000; i++) {
      members.append(i == 0 ? "" : ", ").append("\"p").append(i).append("\";r=1;t=1");
    }
    String tenThousand = members.toString();
    add(cases, "200 RateLimit with 10,000 list members",
        e -> e.write(Http.status(200).header("RateLimit", tenThousand).body("ok")), null);
    add(cases, "429 RateLimit-Policy with 10,000 list members",
        e -> e.write(Http.status(429).header("RateLimit-Policy",
            tenThousand.replace(";r=1;t=1", ";q=1;w=1")).body("no")), null);
    add(cases, "200 2,000 distinct headers",
        e -> {
          Http http = Http.status(200);
          for (int i = 0; i < 2_000; i++) {
            http.header("X-RateLimit-Junk-" + i, String.valueOf(i));
          }
          e.write(http.body("ok"));
        }, null);
  }

  private static void duplicates(List<Case> cases) {
    add(cases, "429 two Retry-After, 0 and 1",
        e -> e.write(Http.status(429).header("Retry-After", "0").header("Retry-After", "1")
            .body("no")), null);
    add(cases, "429 Retry-After a date and a number",
        e -> e.write(Http.status(429).header("Retry-After", FAR_PAST).header("Retry-After", "1")
            .body("no")), null);
    add(cases, "200 RateLimit-Remaining 0 and 100",
        e -> e.write(Http.status(200).header("RateLimit-Limit", "100")
            .header("RateLimit-Remaining", "0").header("RateLimit-Remaining", "100")
            .header("RateLimit-Reset", "1").body("ok")), null);
    add(cases, "200 RateLimit-Limit 1 and 1000",
        e -> e.write(Http.status(200).header("RateLimit-Limit", "1")
            .header("RateLimit-Limit", "1000").header("RateLimit-Remaining", "5")
            .header("RateLimit-Reset", "1").body("ok")), null);
    add(cases, "200 RateLimit twice for one policy, r=0 and r=9",
        e -> e.write(Http.status(200).header("RateLimit", "\"a\";r=0;t=1")
            .header("RateLimit", "\"a\";r=9;t=1").header("RateLimit-Policy", "\"a\";q=10;w=1")
            .body("ok")), null);
    add(cases, "200 X-RateLimit and RateLimit disagree",
        e -> e.write(Http.status(200).header("X-RateLimit-Limit", "10")
            .header("X-RateLimit-Remaining", "0").header("X-RateLimit-Reset", "1")
            .header("RateLimit", "\"default\";r=9;t=1").body("ok")), null);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void bodies(List<Case> cases) {
    String json = "{\"error\":{\"message\":\"slow down\",\"retry_after\":0.2}}";
    byte[] huge = new byte[4 * 1024 * 1024];
    java.util.Arrays.fill(huge, (byte) ' ');
    huge[0] = '{';
    huge[huge.length - 1] = '}';
    for (int status : new int[] {429, 503, 403}) {
      Http jsonHead = Http.status(status).header("Content-Type", "application/json");
      add(cases, status + " JSON body of 4 MiB",
          e -> e.write(Http.status(status).header("Content-Type", "application/json")
              .body(huge)), null);
      add(cases, status + " JSON body that never ends",
          e -> e.write(jsonHead.head()).write("{\"a\":[").forever(bytes("1,".repeat(512)), Duration.ZERO),
          null);
      add(cases, status + " JSON body that trickles",
          e -> e.write(Http.status(status).header("Content-Type", "application/json")
              .header("Content-Length", String.valueOf(json.length())).head())
              .trickle(bytes(json), Duration.ofMillis(150)), null);
      add(cases, status + " JSON Content-Length longer than the body, connection held",
          e -> e.write(Http.status(status).header("Content-Type", "application/json")
              .header("Content-Length", "5000").head()).write(json).hang(), null);
      add(cases, status + " JSON Content-Length longer than the body, connection closed",
          e -> e.write(Http.status(status).header("Content-Type", "application/json")
              .header("Content-Length", "5000").head()).write(json).cut(), null);
      add(cases, status + " JSON Content-Length shorter than the body",
          e -> e.write(Http.status(status).header("Content-Type", "application/json")
              .header("Content-Length", "5").head()).write(json), null);
      add(cases, status + " JSON chunked, never ends",
          e -> e.write(Http.status(status).header("Content-Type", "application/json")
              .header("Transfer-Encoding", "chunked").head())
              .forever(bytes("2\r\n1,\r\n"), Duration.ofMillis(5)), null);
      add(cases, status + " JSON chunked, bad chunk size",
          e -> e.write(Http.status(status).header("Content-Type", "application/json")
              .header("Transfer-Encoding", "chunked").head()).write("zz\r\n{}\r\n0\r\n\r\n"),
          null);
      add(cases, status + " JSON headers, then silence",
          e -> e.write(Http.status(status).header("Content-Type", "application/json")
              .header("Content-Length", "100").head()).hang(), null);
    }
    add(cases, "429 JSON nested 100,000 deep",
        e -> e.write(Http.status(429).header("Content-Type", "application/json")
            .body("[".repeat(100_000))), null);
    add(cases, "429 JSON retry_after 1e308 in the body",
        e -> e.write(Http.status(429).header("Content-Type", "application/json")
            .body("{\"error\":{\"retry_after\":1e308}}")), null);
    add(cases, "429 JSON not JSON at all",
        e -> e.write(Http.status(429).header("Content-Type", "application/json")
            .body(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2})), null);
    add(cases, "429 gzip Content-Encoding that is not gzip",
        e -> e.write(Http.status(429).header("Content-Type", "application/json")
            .header("Content-Encoding", "gzip").body(json)), null);
    add(cases, "200 body that never ends",
        e -> e.write(Http.status(200).head()).forever(bytes("x".repeat(1024)), Duration.ZERO), null);
    add(cases, "200 body that trickles",
        e -> e.write(Http.status(200).header("Content-Length", "40").head())
            .trickle(bytes("x".repeat(40)), Duration.ofMillis(100)), null);
  }

  private static void connections(List<Case> cases) {
    add(cases, "closed before any byte", e -> e.cut(), null);
    add(cases, "reset before any byte", e -> e.reset(), null);
    add(cases, "closed mid status line", e -> {
      e.write("HTTP/1.1 42");
      e.cut();
    }, null);
    add(cases, "closed mid headers of a 429", e -> {
      e.write("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nRateLimit-Rem");
      e.cut();
    }, null);
    add(cases, "reset mid headers of a 429", e -> {
      e.write("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\n");
      e.reset();
    }, null);
    add(cases, "closed mid body of a 429 JSON", e -> {
      e.write(Http.status(429).header("Content-Type", "application/json")
          .header("Content-Length", "400").head()).write("{\"error\":");
      e.cut();
    }, null);
    add(cases, "reset mid body of a 200", e -> {
      e.write(Http.status(200).header("Content-Length", "400").head()).write("xxxx");
      e.reset();
    }, null);
    add(cases, "never answers", e -> e.hang(), null);
    add(cases, "status line, then silence", e -> e.write("HTTP/1.1 429 Too Many Requests\r\n")
        .hang(), null);
    add(cases, "not HTTP at all", e -> e.write("SSH-2.0-OpenSSH_9.0\r\n"), null);
    add(cases, "status 999 with rate-limit headers",
        e -> e.write(Http.status(999).header("Retry-After", "0").body("?")), null);
    add(cases, "header line without a colon",
        e -> e.write("HTTP/1.1 429 Too Many Requests\r\nRetry-After 5\r\nContent-Length: 0\r\n"
            + "Connection: close\r\n\r\n"), null);
    add(cases, "header folded over two lines",
        e -> e.write("HTTP/1.1 429 Too Many Requests\r\nRetry-After:\r\n 1\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n"), null);
  }

  private static void throttling(List<Case> cases) {
    add(cases, "429 forever without Retry-After",
        e -> e.write(Http.status(429).body("no")), null);
    add(cases, "429 forever with Retry-After: 0",
        e -> e.write(Http.status(429).header("Retry-After", "0").body("no")), null);
    add(cases, "503 forever with Retry-After: 1",
        e -> e.write(Http.status(503).header("Retry-After", "1").body("no")), null);
    add(cases, "429 forever with RateLimit r=0;t=0",
        e -> e.write(Http.status(429).header("RateLimit", "\"default\";r=0;t=0")
            .header("RateLimit-Policy", "\"default\";q=5;w=1").body("no")), null);
    add(cases, "flapping 200, 429, 503",
        e -> {
          int i = e.index % 3;
          e.write(i == 0 ? Http.status(200).body("ok")
              : i == 1 ? Http.status(429).header("Retry-After", "0").body("no")
                  : Http.status(503).header("Retry-After", "1").body("busy"));
        }, null);
    add(cases, "flapping quota 0 and 10 on every other 200",
        e -> e.write(Http.status(200).header("RateLimit-Limit", "10")
            .header("RateLimit-Remaining", e.index % 2 == 0 ? "0" : "10")
            .header("RateLimit-Reset", "1").body("ok")), null);
    add(cases, "429 Retry-After: 1 with a trickling JSON body",
        e -> e.write(Http.status(429).header("Retry-After", "1")
            .header("Content-Type", "application/json").header("Content-Length", "40").head())
            .trickle(bytes("{\"retry_after\":1,\"pad\":\"xxxxxxxxxxxxxx\"}"), Duration.ofMillis(100)),
        null);
    add(cases, "429 quota 0 for an hour, then behaves",
        e -> e.write(Http.status(429).header("RateLimit", "\"default\";r=0;t=3600")
            .header("RateLimit-Policy", "\"default\";q=10;w=3600").body("no")), null);
  }

  /**
   * A server that counts right and admits every request, but whose reset lies thousands of years
   * out ({@code 99999999999999}: epoch milliseconds in the year 5138) or decades
   * ({@code 999999999} seconds); its count comes back (9 to 1 left, again and again). Headway
   * once capped the reset to a day and spread the last units of the count over it, refusing
   * every call the server would have admitted.
   */
  private static void resetsPastTheCap(List<Case> cases) {
    for (String prefix : List.of("X-RateLimit-", "RateLimit-")) {
      String reset = prefix.startsWith("X") ? "99999999999999" : "999999999";
      cases.add(new Case("200 admitting every request, " + prefix + "Reset " + reset,
          e -> e.write(Http.status(200).header(prefix + "Limit", "10")
              .header(prefix + "Remaining", Integer.toString(9 - e.index % 9))
              .header(prefix + "Reset", reset).body("ok")), null, 20, true));
    }
  }

  /** Responses sent in each attack on the pacer's state. */
  static final int STATE_CALLS = 100;

  /**
   * Attacks on the pacer's state, a new name on every response: each must leave at most 4
   * {@code pk} partitions beside the origin's and at most 16 policies in a partition (the suite
   * checks both after every case).
   */
  private static void state(List<Case> cases) {
    cases.add(new Case("200 a new pk on every response", e -> {
      String pk = ";pk=:" + Base64.getEncoder().encodeToString(
          ByteBuffer.allocate(Integer.BYTES).putInt(e.index).array()) + ":";
      e.write(Http.status(200).header("RateLimit-Policy", "\"u\";q=1000;w=60" + pk)
          .header("RateLimit", "\"u\";r=999;t=60" + pk).body("ok"));
    }, null, STATE_CALLS));
    cases.add(new Case("200 a new policy name on every response", e -> {
      String name = "\"p" + e.index + "\"";
      e.write(Http.status(200).header("RateLimit-Policy", name + ";q=1000;w=60")
          .header("RateLimit", name + ";r=999;t=60").body("ok"));
    }, null, STATE_CALLS));
    cases.add(new Case("200 64 new policy names on every response", e -> {
      StringBuilder policies = new StringBuilder();
      StringBuilder limits = new StringBuilder();
      for (int j = 0; j < 64; j++) {
        String name = "\"p" + e.index + "-" + j + "\"";
        policies.append(j == 0 ? "" : ", ").append(name).append(";q=1000;w=60");
        limits.append(j == 0 ? "" : ", ").append(name).append(";r=999;t=60");
      }
      e.write(Http.status(200).header("RateLimit-Policy", policies.toString())
          .header("RateLimit", limits.toString()).body("ok"));
    }, null, STATE_CALLS));
  }

  private static void add(List<Case> cases, String name, Script script, String pending) {
    cases.add(new Case(name, script, pending, 2));
  }
}
