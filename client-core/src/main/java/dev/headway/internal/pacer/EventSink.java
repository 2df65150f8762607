package dev.headway.internal.pacer;

import dev.headway.PacerEvent;
import dev.headway.PacerListener;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Where the engine's events go. {@link #NONE} drops them (no listener: callers check
 * {@link #enabled()} and build no event); {@link #of} hands them to listeners on the pacer's
 * callback executor ({@link Callbacks}); none of them can break a request.
 */
interface EventSink {
  /** The sink of an engine without listeners. */
  EventSink NONE = new EventSink() {
    @Override
    public boolean enabled() {
      return false;
    }

    @Override
    public void emit(PacerEvent event) {}
  };

  /** Whether an event would reach anyone (if not, don't build it). */
  boolean enabled();

  /** Hands {@code event} to every listener; never throws what a listener threw. */
  void emit(PacerEvent event);

  /** Returns the sink of {@code listeners}. */
  static EventSink of(List<PacerListener> listeners, Swallowed swallowed, Executor executor) {
    if (listeners.isEmpty()) {
      return NONE;
    }
    PacerListener[] all = listeners.toArray(new PacerListener[0]);
    return new EventSink() {
      @Override
      public boolean enabled() {
        return true;
      }

      @Override
      public void emit(PacerEvent event) {
        Callbacks.run(executor, () -> deliver(event));
      }

      private void deliver(PacerEvent event) {
        for (PacerListener listener : all) {
          try {
            listener.onEvent(event);
          } catch (VirtualMachineError e) {
            throw e;
          } catch (Throwable e) {
            // A listener can never break a request; logged, never silently dropped.
            swallowed.report("a PacerListener", e);
          }
        }
      }
    };
  }
}
