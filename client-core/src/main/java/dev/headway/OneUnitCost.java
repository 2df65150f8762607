package dev.headway;

/**
 * The default cost function: every request costs one unit (and its body's length in bytes).
 * One instance, so that the pacer can tell it from a user's function and call it unguarded: it
 * cannot throw.
 */
final class OneUnitCost implements RequestCost {
  /** The one instance. */
  static final OneUnitCost INSTANCE = new OneUnitCost();

  private OneUnitCost() {}

  @Override
  public long cost(RequestInfo request) {
    return 1;
  }

  @Override
  public String toString() {
    return "oneUnit";
  }
}
