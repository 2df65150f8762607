/**
 * The {@code headway} command line: {@code headway explain} shows what a response's rate-limit
 * signals mean, as Headway reads them.
 */
module dev.headway.cli {
  requires transitive dev.headway.core;
  requires com.fasterxml.jackson.databind;
  requires java.net.http;
  requires static org.jspecify;

  exports dev.headway.cli;
}
