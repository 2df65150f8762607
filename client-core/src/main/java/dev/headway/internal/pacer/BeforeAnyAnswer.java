package dev.headway.internal.pacer;

import dev.headway.Permit;

/**
 * Tells the adapters whether a permit was granted before its server had answered anything on
 * its partition: no response, no request that ended without one (a timeout, an I/O error), no
 * hold, no limit known or declared. A caller held until then was held only for lack of an answer
 * (the probes of first contact, see {@code Hold}), not by any limit: the adapters take the time
 * it was held off the client's timeout for its first send, so that against a server that never
 * answers it fails as soon as it would without Headway ({@code PacedExchange}). Thread-safe.
 */
public final class BeforeAnyAnswer {
  private BeforeAnyAnswer() {}

  /**
   * Returns whether {@code permit}, just granted, was granted while its partition had heard
   * nothing from the server and knew no limit; false for a permit of another pacer than
   * Headway's own. Asked as the permit reaches its caller: an answer that came in between (the
   * permit then goes with the client's whole timeout) is the only difference from asking at the
   * grant. Costs one volatile read once the partition heard anything; the partition's monitor
   * only before that.
   */
  public static boolean granted(Permit permit) {
    if (!(permit instanceof PermitImpl p)) {
      return false;
    }
    Partition base = p.base;
    if (!base.hold.silent()) {
      return false;
    }
    synchronized (base) {
      return base.hold.silent() && base.policies().length == 0;
    }
  }
}
