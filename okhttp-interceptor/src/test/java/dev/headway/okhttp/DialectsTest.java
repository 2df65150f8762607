package dev.headway.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.PolicySnapshot;
import dev.headway.QuotaSnapshot;
import dev.headway.okhttp.testing.Harness;
import dev.headway.okhttp.testing.Mode;
import dev.headway.okhttp.testing.Outcome;
import dev.headway.okhttp.testing.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every dialect end to end, through OkHttp: one documented example each (fixtures in
 * {@code dialects.txt}), sent by the server; the pacer's quota snapshot, or the retry's timing,
 * shows that the interceptor handed the response to the pacer and the pacer understood it.
 */
class DialectsTest {
  /** One example of dialects.txt. */
  record Example(String name, Reply reply, Map<String, String> expect) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> examples() throws IOException {
    List<Arguments> arguments = new ArrayList<>();
    for (Example example : load()) {
      for (Mode mode : Mode.values()) {
        arguments.add(Arguments.of(example, mode));
      }
    }
    return arguments.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("examples")
  void theDialectsExampleReachesThePacer(Example example, Mode mode) throws Exception {
    try (Harness h = Harness.start()) {
      h.pacer(p -> p.maxWait(Duration.ofSeconds(120)));
      h.enqueue(example.reply()).fallback(Reply.status(200).body("after"));

      Outcome outcome = h.send(mode, h.get("/api"));

      if (example.expect().containsKey("retryAfter")) {
        Duration after = Duration.ofMillis(
            (long) (Double.parseDouble(example.expect().get("retryAfter")) * 1000));
        assertThat(outcome.body()).isEqualTo("after");
        assertThat(h.sent()).hasSize(2);
        assertThat(h.sent().get(1).at()).isGreaterThanOrEqualTo(after);
      } else {
        assertThat(outcome.code()).isEqualTo(example.reply().status());
        QuotaSnapshot quota = h.pacer().quota(h.url("/api").uri());
        OptionalLong remaining = OptionalLong.of(Long.parseLong(example.expect().get("remaining")));
        assertThat(quota.policies()).as(quota.toString()).anySatisfy(policy -> {
          assertThat(policy.remaining()).isEqualTo(remaining);
          if (example.expect().containsKey("limit")) {
            assertThat(policy.limit())
                .isEqualTo(OptionalLong.of(Long.parseLong(example.expect().get("limit"))));
          }
        });
        assertThat(quota.policies()).extracting(PolicySnapshot::source).doesNotContainNull();
      }
    }
  }

  static List<Example> load() throws IOException {
    String text;
    try (InputStream in = DialectsTest.class.getResourceAsStream("dialects.txt")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<Example> examples = new ArrayList<>();
    for (String block : text.split("\n=== ")) {
      if (block.startsWith("#")) {
        continue;
      }
      String[] lines = block.split("\n");
      Reply reply = Reply.status(200);
      Map<String, String> expect = new LinkedHashMap<>();
      int status = 200;
      String body = "";
      List<String> headers = new ArrayList<>();
      for (int i = 1; i < lines.length; i++) {
        String line = lines[i];
        if (line.isBlank()) {
          continue;
        } else if (line.startsWith("@status ")) {
          status = Integer.parseInt(line.substring(8).trim());
        } else if (line.startsWith("@body ")) {
          body = line.substring(6);
        } else if (line.startsWith("@expect ")) {
          for (String pair : line.substring(8).trim().split(" ")) {
            String[] kv = pair.split("=", 2);
            expect.put(kv[0], kv[1]);
          }
        } else {
          int colon = line.indexOf(':');
          headers.add(line.substring(0, colon).trim());
          headers.add(line.substring(colon + 1).trim());
        }
      }
      reply = new Reply(status, headers, body);
      examples.add(new Example(lines[0].trim(), reply, expect));
    }
    return examples;
  }
}
