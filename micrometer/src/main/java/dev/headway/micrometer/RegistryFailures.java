package dev.headway.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Consumer;

/**
 * Runs a registration or a recording on one registry at a time, so that a registry that throws
 * (a {@code MeterFilter} that throws, a meter of another type already registered under the
 * name, a registry of your own) costs only its own meters: the other registries still get
 * theirs, the pacer's events and the user's {@code bindTo} never see the exception, and the
 * gauge bookkeeping stays whole. Each registry's first failure is logged at {@code WARNING}
 * ({@link System.Logger} {@code dev.headway.micrometer}), later ones at {@code DEBUG}.
 * Thread-safe.
 */
final class RegistryFailures {
  private static final System.Logger LOG = System.getLogger("dev.headway.micrometer");

  private final Set<MeterRegistry> warned =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  /**
   * Runs {@code call} on {@code registry}; returns whether it completed (false: it threw, and
   * the failure was logged).
   */
  boolean run(MeterRegistry registry, String what, Consumer<MeterRegistry> call) {
    try {
      call.accept(registry);
      return true;
    } catch (RuntimeException | LinkageError e) {
      Level level = warned.add(registry) ? Level.WARNING : Level.DEBUG;
      LOG.log(level, "Headway metrics: the registry " + registry.getClass().getName()
          + " failed to " + what + "; its other Headway meters and the other registries are"
          + " unaffected" + (level == Level.WARNING ? " (further failures at DEBUG)" : ""), e);
      return false;
    }
  }

  /** Runs {@code call} on each of {@code registries}, each failure alone. */
  void each(Iterable<MeterRegistry> registries, String what, Consumer<MeterRegistry> call) {
    for (MeterRegistry registry : registries) {
      run(registry, what, call);
    }
  }
}
