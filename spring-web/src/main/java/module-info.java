/** Headway for Spring: {@link dev.headway.spring.RateLimitClientHttpRequestInterceptor}. */
// Spring ships only Automatic-Module-Names (spring.web, spring.core); its types are part of this
// module's API (ClientHttpRequestInterceptor), hence transitive and the suppressed lint.
@SuppressWarnings("requires-transitive-automatic")
module dev.headway.spring {
  requires transitive dev.headway.core;
  requires transitive spring.web;
  requires spring.core;
  requires static org.jspecify;

  exports dev.headway.spring;
}
