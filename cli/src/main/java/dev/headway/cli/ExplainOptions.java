package dev.headway.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The options of {@code headway explain}, parsed and checked.
 *
 * @param format how to print the explanation
 * @param now the wall-clock time fixed by {@code --now}, if given
 * @param url the URL to GET instead of reading stdin, if given
 * @param headers request header lines for {@code --url}, each {@code {name, value}}
 * @param followRedirects whether {@code --url} follows redirects ({@code -L})
 * @param timeout how long {@code --url} may take in all: connection, response head and body
 * @param help whether {@code --help} was given
 */
record ExplainOptions(
    Format format, Optional<Instant> now, Optional<URI> url, List<String[]> headers,
    boolean followRedirects, Duration timeout, boolean help) {

  /** The default {@code --timeout}. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** How the explanation is printed. */
  enum Format {
    /** The JSON object of the contract. */
    JSON,
    /** A short human-readable table. */
    TEXT
  }

  ExplainOptions {
    Objects.requireNonNull(format, "format must not be null");
    Objects.requireNonNull(now, "now must not be null");
    Objects.requireNonNull(url, "url must not be null");
    headers = List.copyOf(headers);
    Objects.requireNonNull(timeout, "timeout must not be null");
  }

  /**
   * Parses the arguments that follow {@code explain}. Options take their value as the next
   * argument or after {@code =} ({@code --now=1700000000}).
   *
   * @throws CliException naming the option, for an unknown option or a bad value
   */
  static ExplainOptions parse(List<String> args) throws CliException {
    Format format = Format.JSON;
    Optional<Instant> now = Optional.empty();
    Optional<URI> url = Optional.empty();
    List<String[]> headers = new ArrayList<>();
    boolean followRedirects = false;
    Optional<Duration> timeout = Optional.empty();
    boolean help = false;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String name = arg;
      String inline = null;
      int equals = arg.indexOf('=');
      if (arg.startsWith("--") && equals > 0) {
        name = arg.substring(0, equals);
        inline = arg.substring(equals + 1);
      } else if (arg.startsWith("-H") && arg.length() > 2) {
        name = "-H";
        inline = arg.substring(2);
      }
      switch (name) {
        case "-h", "--help" -> help = true;
        case "-L", "--location" -> followRedirects = true;
        case "--format" -> {
          String value = inline != null ? inline : value(args, ++i, name);
          format = switch (value.toLowerCase(Locale.ROOT)) {
            case "json" -> Format.JSON;
            case "text" -> Format.TEXT;
            default -> throw new CliException(
                "--format must be json or text but was '" + Printable.of(value) + "'");
          };
        }
        case "--now" -> now = Optional.of(Times.parseNow(
            inline != null ? inline : value(args, ++i, name)));
        case "--url" -> url = Optional.of(parseUrl(
            inline != null ? inline : value(args, ++i, name)));
        case "-H", "--header" -> headers.add(parseHeader(
            inline != null ? inline : value(args, ++i, name)));
        case "--timeout" -> timeout = Optional.of(parseTimeout(
            inline != null ? inline : value(args, ++i, name)));
        default -> throw new CliException(arg.startsWith("-")
            ? "unknown option '" + Printable.of(arg) + "' (see headway explain --help)"
            : "unexpected argument '" + Printable.of(arg) + "': explain reads the response from"
                + " stdin, or GETs it with --url");
      }
    }
    if (url.isEmpty() && !help) {
      if (!headers.isEmpty()) {
        throw new CliException("-H needs --url: it sets a header of the request to send");
      }
      if (followRedirects) {
        throw new CliException("-L needs --url: it follows redirects of the request to send");
      }
      if (timeout.isPresent()) {
        throw new CliException("--timeout needs --url: it bounds the request to send");
      }
    }
    return new ExplainOptions(format, now, url, headers, followRedirects,
        timeout.orElse(DEFAULT_TIMEOUT), help);
  }

  private static String value(List<String> args, int index, String option) throws CliException {
    if (index >= args.size()) {
      throw new CliException(option + " needs a value (see headway explain --help)");
    }
    return args.get(index);
  }

  private static URI parseUrl(String value) throws CliException {
    try {
      URI uri = new URI(value);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new CliException("--url must be an absolute http or https URL but was '"
            + Printable.of(value) + "'");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new CliException("--url must be an absolute http or https URL but was '"
          + Printable.of(value) + "' (" + e.getReason() + ")");
    }
  }

  private static String[] parseHeader(String value) throws CliException {
    int colon = value.indexOf(':');
    String name = colon < 0 ? "" : value.substring(0, colon).strip();
    if (name.isEmpty()) {
      throw new CliException("-H must be 'Name: value' but was '" + Printable.of(value) + "'");
    }
    return new String[] {name, value.substring(colon + 1).strip()};
  }

  private static Duration parseTimeout(String value) throws CliException {
    try {
      double seconds = Double.parseDouble(value);
      if (seconds > 0 && seconds <= 86_400) {
        return Duration.ofNanos(Math.round(seconds * 1e9));
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new CliException("--timeout must be a number of seconds in (0, 86400] but was '"
        + Printable.of(value) + "'");
  }
}
