package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The examples in docs/cli.md are real: running their input prints their output.
 */
class DocsExamplesTest {
  private static String doc() throws IOException {
    Path path = Path.of("..", "docs", "cli.md");
    return Files.readString(path, StandardCharsets.UTF_8);
  }

  private static String between(String text, String start, String end) {
    int from = text.indexOf(start);
    assertThat(from).as("docs/cli.md contains %s", start).isNotNegative();
    from += start.length();
    int to = text.indexOf(end, from);
    assertThat(to).as("docs/cli.md contains %s after %s", end, start).isPositive();
    return text.substring(from, to);
  }

  @Test
  void theJsonExampleIsWhatTheCommandPrints() throws IOException {
    String doc = doc();
    String input = between(doc, "$ cat response.txt\n", "$ ./headway explain < response.txt\n");
    String output = between(doc, "$ ./headway explain < response.txt\n```\n\n```json\n", "```\n");

    Cli.Result result = Cli.run(Cli.crlf(input), "explain");

    assertThat(result.exitCode()).isZero();
    assertThat(result.stdout()).isEqualTo(output);
  }

  @Test
  void theTextExamplesAreWhatTheCommandPrints() throws IOException {
    String doc = doc();
    Matcher m = Pattern.compile("\\$ \\./headway explain --format text < "
        + "cli/src/test/resources/responses/([a-z0-9-]+\\.http)\n(.*?)```", Pattern.DOTALL)
        .matcher(doc);
    int count = 0;
    while (m.find()) {
      Cli.Result result = Cli.explainFixture(m.group(1), "--format", "text");
      assertThat(result.stdout()).as(m.group(1)).isEqualTo(m.group(2));
      count++;
    }
    assertThat(count).isGreaterThanOrEqualTo(2);
  }

  @Test
  void theHostileExampleIsWhatTheCommandPrints() throws IOException {
    String doc = doc();
    String command = "' \\\n    | ./headway explain --format text --now 2025-01-06T10:00:00Z\n";
    String printf = between(doc, "$ printf '", command);
    String output = between(doc, "$ printf '" + printf + command, "```");

    Cli.Result result = Cli.run(printf.replace("\\r", "\r").replace("\\n", "\n"), "explain",
        "--format", "text", "--now", "2025-01-06T10:00:00Z");

    assertThat(result.exitCode()).isZero();
    assertThat(result.stdout()).isEqualTo(output);
  }

  @Test
  void theErrorExampleIsWhatTheCommandPrints() throws IOException {
    String shown = between(doc(), "$ echo 'Retry-After: 20' | ./headway explain\n", "$ echo $?");

    Cli.Result result = Cli.run("Retry-After: 20\n", "explain");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stderr()).isEqualTo(shown.replace("\n", System.lineSeparator()));
  }
  @Test
  void theFirstExampleIsWhatTheCommandPrints() throws IOException {
    String readme = doc();
    String output = between(readme, "$ ./headway explain --format text < response.txt\n", "```");
    String input = between(readme, "where `response.txt` is\n\n```text\n", "```");

    Cli.Result result = Cli.run(Cli.crlf(input + "\n"), "explain", "--format", "text");

    assertThat(result.exitCode()).isZero();
    assertThat(result.stdout()).isEqualTo(output);
  }
}
