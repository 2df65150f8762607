/**
 * Headway for Apache HttpClient 5: {@link dev.headway.httpclient5.RateLimitExecChainHandler} (classic)
 * and {@link dev.headway.httpclient5.RateLimitAsyncExecChainHandler} (asynchronous).
 */
// HttpClient 5 ships only Automatic-Module-Names; its types are part of this module's API
// (ExecChainHandler, HttpClientBuilder), hence transitive and the suppressed lint.
@SuppressWarnings("requires-transitive-automatic")
module dev.headway.httpclient5 {
  requires transitive dev.headway.core;
  requires transitive org.apache.httpcomponents.client5.httpclient5;
  requires transitive org.apache.httpcomponents.core5.httpcore5;
  requires static org.jspecify;

  exports dev.headway.httpclient5;
}
