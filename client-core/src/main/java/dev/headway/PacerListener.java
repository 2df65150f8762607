package dev.headway;

/**
 * Receives a {@link Pacer}'s {@link PacerEvent}s. Called synchronously on the thread that caused
 * the event, outside the pacer's locks; keep it short. An exception thrown by a listener is
 * swallowed: a listener can never break a request.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface PacerListener {
  /**
   * Receives one event.
   *
   * @param event what the pacer did or learned
   */
  void onEvent(PacerEvent event);
}
