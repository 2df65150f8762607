/** Headway for Feign: {@link dev.headway.feign.RateLimitCapability}. */
module dev.headway.feign {
  requires transitive dev.headway.core;
  requires transitive feign.core;
  requires static org.jspecify;

  exports dev.headway.feign;
}
