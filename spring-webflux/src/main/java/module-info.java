/** Headway for Spring's WebClient: {@link dev.headway.spring.webflux.RateLimitExchangeFilterFunction}. */
// Spring ships only Automatic-Module-Names (spring.webflux, spring.web, spring.core); its types
// are part of this module's API (ExchangeFilterFunction), hence transitive and the suppressed lint.
@SuppressWarnings("requires-transitive-automatic")
module dev.headway.spring.webflux {
  requires transitive dev.headway.core;
  requires transitive spring.webflux;
  requires spring.web;
  requires spring.core;
  requires reactor.core;
  requires org.reactivestreams;
  requires static org.jspecify;

  exports dev.headway.spring.webflux;
}
