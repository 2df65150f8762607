package dev.headway.internal.pacer;

import dev.headway.QuotaUnit;

/**
 * What is in flight for one policy that does not govern every route: the partition's permits,
 * less those of the routes known not to count against it ({@link #excluded}, kept by
 * {@link RouteTable}). Permits of routes not yet learned count (they may turn out to be
 * governed). Guarded by the partition's monitor.
 */
final class ScopedFlight extends InFlight {
  private final InFlight all;
  /** The permits of the routes that this policy does not govern. */
  final InFlight excluded = new InFlight();

  ScopedFlight(InFlight all) {
    this.all = all;
  }

  @Override
  long units(QuotaUnit unit) {
    return all.units(unit) - excluded.units(unit);
  }

  @Override
  int permits() {
    return all.permits() - excluded.permits();
  }

  @Override
  void add(PermitImpl permit) {
    throw new UnsupportedOperationException("a view");
  }

  @Override
  void remove(PermitImpl permit) {
    throw new UnsupportedOperationException("a view");
  }
}
