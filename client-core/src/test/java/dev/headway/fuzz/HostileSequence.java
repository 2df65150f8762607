package dev.headway.fuzz;

import dev.headway.HttpFields;
import dev.headway.RequestInfo;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * The responses of a hostile server, one step of a sequence at a time: a policy name never seen
 * before on every response (one, or 64 at once), a {@code pk} that rotates on every response,
 * counts and resets out of every range (negative, zero, 40 digits, a reset far ahead), legacy
 * fields with the same values, names that are long or odd, 429s with and without
 * {@code Retry-After}, and plain 200s. The choices come from a {@link Choices}: a seeded random
 * generator for the long runs, the fuzzer's data for {@link PacerSequenceFuzzTest}.
 */
final class HostileSequence {
  /** The origins the requests go to (the default resolver makes one partition of each). */
  static final int ORIGINS = 4;

  /** Where the choices come from. */
  interface Choices {
    /** Returns a number in {@code [min, max]}. */
    int pick(int min, int max);
  }

  /** One request and the response it gets. */
  record Step(RequestInfo request, int status, HttpFields headers) {}

  private static final RequestInfo[] REQUESTS = new RequestInfo[ORIGINS];

  static {
    for (int i = 0; i < ORIGINS; i++) {
      REQUESTS[i] = RequestInfo.get(URI.create("https://h" + i + ".example.com/items"));
    }
  }

  /** Counts no server should send. */
  private static final String[] COUNTS = {"-1", "0", "1", "1000",
      "1234567890123456789012345678901234567890", "9223372036854775807", "99999999999999", "1.5",
      "NaN", ""};
  /** Resets and windows no server should send (and a few it might). */
  private static final String[] SECONDS = {"-5", "0", "1", "60", "3600", "86400", "999999999",
      "1234567890123456789012345678901234567890", "1700000000"};
  private static final String[] ODD_NAMES = {"", "a\\\"b", "\u00e9t\u00e9", "x y", "p;q=1",
      "%", "{}|", "very-long-".repeat(30)};

  private HostileSequence() {}

  /** A request to one of the {@link #ORIGINS} origins. */
  static RequestInfo request(Choices choices) {
    return REQUESTS[choices.pick(0, ORIGINS - 1)];
  }

  /** Step {@code i} of a sequence: the response a hostile server gives to {@code request}. */
  static Step step(int i, Choices choices) {
    RequestInfo request = request(choices);
    HttpFields.Builder h = HttpFields.builder();
    int status = 200;
    switch (choices.pick(0, 9)) {
      case 0, 1 -> { // a new name on every response
        String name = "\"p" + i + "\"";
        h.add("RateLimit-Policy", name + ";q=" + quota(choices) + ";w=" + window(choices));
        h.add("RateLimit", name + ";r=" + remaining(choices) + ";t=" + reset(choices));
      }
      case 2 -> { // 64 new names at once
        StringBuilder policies = new StringBuilder();
        StringBuilder limits = new StringBuilder();
        for (int j = 0; j < 64; j++) {
          String name = "\"p" + i + "-" + j + "\"";
          policies.append(j == 0 ? "" : ", ").append(name).append(";q=1000000;w=3600");
          limits.append(j == 0 ? "" : ", ").append(name).append(";r=999999;t=3600");
        }
        h.add("RateLimit-Policy", policies.toString()).add("RateLimit", limits.toString());
      }
      case 3, 4 -> { // a pk that rotates on every response
        String pk = ";pk=:" + Base64.getEncoder().encodeToString(
            ByteBuffer.allocate(Integer.BYTES).putInt(i).array()) + ":";
        h.add("RateLimit-Policy", "\"u\";q=" + quota(choices) + ";w=" + window(choices) + pk);
        h.add("RateLimit", "\"u\";r=" + remaining(choices) + ";t=" + reset(choices) + pk);
      }
      case 5 -> { // counts and resets out of range, on a name the server keeps
        h.add("RateLimit-Policy", "\"fixed\";q=" + pick(COUNTS, choices) + ";w="
            + pick(SECONDS, choices));
        h.add("RateLimit", "\"fixed\";r=" + pick(COUNTS, choices) + ";t="
            + pick(SECONDS, choices));
      }
      case 6 -> { // the legacy fields, the same values
        h.add("X-RateLimit-Limit", pick(COUNTS, choices))
            .add("X-RateLimit-Remaining", pick(COUNTS, choices))
            .add("X-RateLimit-Reset", pick(SECONDS, choices));
      }
      case 7 -> { // throttled, briefly or with a hostile Retry-After
        status = choices.pick(0, 1) == 0 ? 429 : 503;
        if (choices.pick(0, 2) > 0) {
          h.add("Retry-After", choices.pick(0, 3) == 0 ? pick(SECONDS, choices)
              : Integer.toString(choices.pick(0, 5)));
        }
      }
      case 8 -> { // odd names: long, escaped, not ASCII, empty
        String name = "\"" + pick(ODD_NAMES, choices) + i + "\"";
        h.add("RateLimit-Policy", name + ";q=1000;w=60");
        h.add("RateLimit", name + ";r=" + remaining(choices) + ";t=" + reset(choices));
      }
      default -> { // nothing to say
      }
    }
    return new Step(request, status, h.build());
  }

  private static String pick(String[] values, Choices choices) {
    return values[choices.pick(0, values.length - 1)];
  }

  private static String quota(Choices choices) {
    return choices.pick(0, 3) == 0 ? pick(COUNTS, choices) : "1000000";
  }

  private static String remaining(Choices choices) {
    return choices.pick(0, 3) == 0 ? pick(COUNTS, choices)
        : Integer.toString(choices.pick(1_000, 999_999));
  }

  private static String window(Choices choices) {
    return choices.pick(0, 3) == 0 ? pick(SECONDS, choices) : "3600";
  }

  private static String reset(Choices choices) {
    return choices.pick(0, 3) == 0 ? pick(SECONDS, choices)
        : Integer.toString(choices.pick(1, 3600));
  }
}
