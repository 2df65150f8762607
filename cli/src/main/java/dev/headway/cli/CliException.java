package dev.headway.cli;

/**
 * A failure the user can fix: a bad option, or input that cannot be read as an HTTP response. The
 * command prints the message as one line on stderr and exits with code 2.
 */
final class CliException extends Exception {
  private static final long serialVersionUID = 1L;

  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
