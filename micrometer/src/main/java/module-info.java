/** Headway for Micrometer: {@link dev.headway.micrometer.HeadwayMetrics}. */
// Micrometer ships only an Automatic-Module-Name (micrometer.core); its types are part of this
// module's API (MeterBinder, MeterRegistry, Tag), hence transitive and the suppressed lint.
@SuppressWarnings("requires-transitive-automatic")
module dev.headway.micrometer {
  requires transitive dev.headway.core;
  requires transitive micrometer.core;
  requires static org.jspecify;

  exports dev.headway.micrometer;
}
