/** Headway for java.net.http: {@link dev.headway.jdk.RateLimitedHttpClient}. */
module dev.headway.jdk {
  requires transitive dev.headway.core;
  requires transitive java.net.http;
  requires static org.jspecify;

  exports dev.headway.jdk;
}
