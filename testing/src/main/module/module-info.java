/**
 * Headway's test support, as OkHttp ships MockWebServer: the contract every quota store owes and
 * fault injection for stores. For tests only.
 */
module dev.headway.testing {
  requires transitive dev.headway.core;
  requires transitive org.junit.jupiter.api;
  requires org.assertj.core;
  requires static org.jspecify;

  exports dev.headway.testing.store;
  // JUnit calls the contract's test methods reflectively.
  opens dev.headway.testing.store to org.junit.platform.commons;
}
