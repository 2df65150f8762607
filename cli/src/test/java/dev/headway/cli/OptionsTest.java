package dev.headway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Exit codes, one-line error messages and help. */
class OptionsTest {
  private static final String OK_INPUT = "HTTP/1.1 200 OK\r\n\r\n";

  @Test
  void exitsZeroWhenTheInputHasNoRateLimitSignal() {
    Cli.Result result = Cli.explainFixture("no-signal-200.http");

    assertThat(result.exitCode()).isZero();
    assertThat(result.stderr()).isEmpty();
    assertThat(result.json().get("status").asInt()).isEqualTo(200);
    assertThat(result.json().get("dialects")).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "explain --bogus                 | unknown option '--bogus' (see headway explain --help)",
      "explain extra                   | unexpected argument 'extra': explain reads the response"
          + " from stdin, or GETs it with --url",
      "explain --format                | --format needs a value (see headway explain --help)",
      "explain --format yaml           | --format must be json or text but was 'yaml'",
      "explain --format=xml            | --format must be json or text but was 'xml'",
      "explain --now                   | --now needs a value (see headway explain --help)",
      "explain --now yesterday         | --now must be epoch seconds or an RFC 3339 date-time such"
          + " as 2025-01-01T00:00:00Z but was 'yesterday'",
      "explain --now 2025-13-01T00:00:00Z | --now must be epoch seconds or an RFC 3339 date-time"
          + " such as 2025-01-01T00:00:00Z but was '2025-13-01T00:00:00Z'",
      "explain --now 99999999999999999999 | --now must be epoch seconds or an RFC 3339 date-time"
          + " such as 2025-01-01T00:00:00Z but was '99999999999999999999'",
      "explain -H 'X: y'               | -H needs --url: it sets a header of the request to send",
      "explain -L                      | -L needs --url: it follows redirects of the request to"
          + " send",
      "explain --timeout 3             | --timeout needs --url: it bounds the request to send",
      "explain --url ftp://example.com/ | --url must be an absolute http or https URL but was"
          + " 'ftp://example.com/'",
      "explain --url /relative         | --url must be an absolute http or https URL but was"
          + " '/relative'",
      "explain --url http://x/ --timeout -1 | --timeout must be a number of seconds in (0, 86400]"
          + " but was '-1'",
      "explain --url http://x/ -H novalue | -H must be 'Name: value' but was 'novalue'",
      "frobnicate                      | unknown command 'frobnicate' (try headway --help)",
      "''                              | unknown command '' (try headway --help)",
  })
  void aBadOptionExitsTwoWithOneLineOnStderr(String args, String message) {
    Cli.Result result = Cli.run(OK_INPUT, split(args));

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stdout()).isEmpty();
    assertThat(result.stderr()).isEqualTo("headway: " + message + System.lineSeparator());
  }

  @Test
  void noArgumentsExitsTwo() {
    Cli.Result result = Cli.run(OK_INPUT);

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stderr()).startsWith("headway: no command");
  }

  @Test
  void unreadableInputExitsTwoWithOneLine() {
    for (String input : new String[] {"", "garbage\n", "{\"json\": true}", "HTTP/1.1 abc\n"}) {
      Cli.Result result = Cli.run(input, "explain");

      assertThat(result.exitCode()).as(input).isEqualTo(2);
      assertThat(result.stdout()).as(input).isEmpty();
      assertThat(result.stderr()).as(input).startsWith("headway: ")
          .endsWith(System.lineSeparator());
      assertThat(result.stderr().strip().lines()).as(input).hasSize(1);
    }
  }

  @Test
  void aFailingStdinExitsTwo() {
    InputStream broken = new InputStream() {
      @Override
      public int read() throws IOException {
        throw new IOException("Input/output error");
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        throw new IOException("Input/output error");
      }
    };

    Cli.Result result = Cli.run(broken, Cli.clock(), new HeadwayCli(), "explain");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.stderr()).isEqualTo("headway: cannot read stdin: Input/output error"
        + System.lineSeparator());
  }

  @Test
  void helpGoesToStdoutAndExitsZero() {
    for (String[] args : new String[][] {{"--help"}, {"-h"}, {"help"}, {"explain", "--help"},
        {"explain", "--format", "text", "-h"}}) {
      Cli.Result result = Cli.run("", args);

      assertThat(result.exitCode()).isZero();
      assertThat(result.stderr()).isEmpty();
      assertThat(result.stdout()).startsWith("usage: headway explain")
          .contains("--now TIME", "--format json|text", "--url URL", "-H, --header", "exit codes");
    }
  }

  @Test
  void optionsAcceptTheirValueAfterAnEqualsSign() {
    Cli.Result spaced = Cli.run(OK_INPUT, "explain", "--format", "text");
    Cli.Result joined = Cli.run(OK_INPUT, "explain", "--format=TEXT");

    assertThat(spaced.exitCode()).isZero();
    assertThat(joined.stdout()).isEqualTo(spaced.stdout()).startsWith("status       200\n");
  }

  @Test
  void aParserThatThrowsIsAnInternalErrorNotACrash() {
    HeadwayCli cli = Cli.withDialects(new dev.headway.dialect.Dialect() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public void read(dev.headway.dialect.DialectContext context,
          dev.headway.dialect.SignalSink sink) {
        throw new IllegalStateException("boom");
      }
    });

    Cli.Result result = Cli.run(OK_INPUT.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
        Cli.clock(), cli, "explain");

    // The parser must contain a dialect's failure; if it does not, the command says so.
    assertThat(result.exitCode()).isIn(0, 1);
    if (result.exitCode() == 1) {
      assertThat(result.stderr()).startsWith("headway: internal error: ");
    } else {
      assertThat(result.json().get("status").asInt()).isEqualTo(200);
    }
  }

  private static String[] split(String args) {
    if (args.equals("''")) {
      return new String[] {""};
    }
    java.util.List<String> list = new java.util.ArrayList<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("'([^']*)'|(\\S+)").matcher(args);
    while (m.find()) {
      list.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    return list.toArray(String[]::new);
  }
}
