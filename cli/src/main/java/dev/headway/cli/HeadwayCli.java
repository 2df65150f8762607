package dev.headway.cli;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SignalParser;
import dev.headway.dialect.FieldValues;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The {@code headway} command line. One command so far, {@code headway explain}: it reads an HTTP
 * response as {@code curl -si} prints it (or GETs one with {@code --url}) and prints what Headway
 * understood of its rate-limit signals, as the JSON object of the {@code headway explain}
 * contract or as a table ({@code --format text}). See {@code docs/cli.md}.
 *
 * <p>Exit codes: 0 when the input could be read, whether or not it carries a rate-limit signal;
 * 2 for a bad option or input that cannot be read as an HTTP response (one line on stderr);
 * 1 for an internal error.
 *
 * <p>Each {@link #run} is independent; an instance holds nothing but its parser. Thread-safe.
 */
public final class HeadwayCli {
  /** Exit code: the input was read and explained. */
  public static final int EXIT_OK = 0;
  /** Exit code: an internal error (a bug); details on stderr. */
  public static final int EXIT_INTERNAL_ERROR = 1;
  /** Exit code: a bad option, or input that cannot be read as an HTTP response. */
  public static final int EXIT_USAGE = 2;

  /** At most this many bytes of stdin are read; the rest is ignored. */
  static final int MAX_INPUT_BYTES = 4 * 1024 * 1024;

  private static final String USAGE = """
      usage: headway explain [--now TIME] [--format json|text] < response.txt
             headway explain --url URL [-H 'Name: value']... [-L] [--timeout SECONDS]
                             [--now TIME] [--format json|text]
             headway --help

      Explains the rate-limit signals of one HTTP response: what Headway reads from its
      RateLimit, RateLimit-Policy, X-RateLimit-*, vendor and Retry-After fields and its body.

      Input: a response as 'curl -si URL' prints it (status line, fields, blank line, body);
      with several (100 Continue, redirects followed by curl -L) the last one is explained.

      options:
        --now TIME          the current time: epoch seconds or RFC 3339
                            (default: the response's Date field, else the system clock)
        --format json|text  the JSON object (default) or a human-readable table
        --url URL           GET the URL with the JDK HttpClient instead of reading stdin
        -H, --header 'Name: value'
                            add a request header (with --url; repeatable)
        -L, --location      follow redirects (with --url)
        --timeout SECONDS   deadline for the whole request, body included
                            (with --url; default 30)
        -h, --help          show this help

      exit codes: 0 explained (even with no rate-limit signal), 2 bad option or unreadable
      input, 1 internal error.
      """;

  private final SignalParser parser;

  /** Creates a command line that reads responses with {@link SignalParser#create()}. */
  public HeadwayCli() {
    this(SignalParser.create());
  }

  /**
   * Creates a command line that reads responses with the given parser.
   *
   * @param parser the parser that reads the responses, with its caps and dialects
   */
  public HeadwayCli(SignalParser parser) {
    this.parser = parser;
  }

  /**
   * Runs the command line and exits the JVM with its exit code.
   *
   * @param args the arguments, e.g. {@code explain --format text}
   */
  public static void main(String[] args) {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
    System.exit(new HeadwayCli().run(args, System.in, out, err, InstantSource.system()));
  }

  /**
   * Runs one command.
   *
   * @param args the arguments, e.g. {@code explain --format text}
   * @param stdin where {@code explain} reads the response unless {@code --url} is given
   * @param stdout where the explanation (or the help) is printed, UTF-8
   * @param stderr where a failure is printed, as one line
   * @param clock the wall clock, used when neither {@code --now} nor a {@code Date} field says
   *     what time it is
   * @return the exit code: {@link #EXIT_OK}, {@link #EXIT_USAGE} or {@link #EXIT_INTERNAL_ERROR}
   */
  public int run(String[] args, InputStream stdin, PrintStream stdout, PrintStream stderr,
      InstantSource clock) {
    try {
      List<String> list = Arrays.asList(args);
      if (list.isEmpty()) {
        throw new CliException("no command (try headway --help)");
      }
      switch (list.get(0)) {
        case "-h", "--help", "help" -> {
          stdout.print(USAGE);
          stdout.flush();
          return EXIT_OK;
        }
        case "explain" -> {
          return explain(ExplainOptions.parse(list.subList(1, list.size())), stdin, stdout,
              clock);
        }
        default -> throw new CliException("unknown command '" + Printable.of(list.get(0))
            + "' (try headway --help)");
      }
    } catch (CliException e) {
      stderr.println("headway: " + e.getMessage());
      stderr.flush();
      return EXIT_USAGE;
    } catch (RuntimeException e) {
      stderr.println("headway: internal error: " + e);
      stderr.flush();
      return EXIT_INTERNAL_ERROR;
    }
  }

  private int explain(ExplainOptions options, InputStream stdin, PrintStream stdout,
      InstantSource clock) throws CliException {
    if (options.help()) {
      stdout.print(USAGE);
      stdout.flush();
      return EXIT_OK;
    }
    RawResponse response = options.url().isPresent()
        ? UrlFetcher.get(options.url().get(), options.headers(), options.followRedirects(),
            options.timeout())
        : RawResponseReader.read(readInput(stdin));
    HttpFields fields = response.fields();
    Instant now;
    if (options.now().isPresent()) {
      // --now wins over the response's Date: the parser measures against Date when present.
      now = options.now().get();
      fields = without(fields, "date");
    } else {
      now = fields.firstValue("Date").flatMap(FieldValues::httpDate).orElseGet(clock::instant);
    }
    byte[] body = response.body().length == 0 ? null : response.body();
    RateLimitSignal signal = parser.parse(response.status(), fields, body, now);
    Explanation explanation = Explanation.of(signal, response.notes());
    String text = switch (options.format()) {
      case JSON -> JsonFormat.write(explanation);
      case TEXT -> TextFormat.write(explanation);
    };
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    stdout.write(bytes, 0, bytes.length);
    stdout.flush();
    return EXIT_OK;
  }

  private static byte[] readInput(InputStream stdin) throws CliException {
    try {
      return stdin.readNBytes(MAX_INPUT_BYTES);
    } catch (IOException e) {
      throw new CliException("cannot read stdin: " + e.getMessage());
    }
  }

  private static HttpFields without(HttpFields fields, String lowerCaseName) {
    HttpFields.Builder builder = HttpFields.builder();
    for (Map.Entry<String, List<String>> field : fields.asMap().entrySet()) {
      if (!field.getKey().equals(lowerCaseName)) {
        field.getValue().forEach(value -> builder.add(field.getKey(), value));
      }
    }
    return builder.build();
  }
}
