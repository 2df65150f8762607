package dev.headway.benchmarks.sim;

/** A compared client: how its callers decide when to send and when to retry. */
public interface ClientKind {
  /** Returns the name shown in tables. */
  String name();

  /** Creates client instance number {@code instance} in {@code sim} and starts its callers. */
  void start(Simulation sim, int instance);
}
