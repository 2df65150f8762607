package dev.headway.jdk;

import dev.headway.internal.adapter.Swallowed;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;

/**
 * Calls the {@link HttpClient} methods added after Java 17 ({@code close}, {@code shutdown},
 * {@code shutdownNow}, {@code awaitTermination}, {@code isTerminated}, all Java 21) on a
 * delegate, when the running JDK — or the delegate's own public class — has them.
 *
 * <p>Each method is looked up once per delegate class: first on {@code HttpClient} itself (Java
 * 21 and later; virtual dispatch reaches the JDK's implementation), then as a public method of the
 * delegate's class (a wrapper or test double that declares it on Java 17). Absent everywhere, the
 * handle is empty and the caller falls back to its own behaviour. Immutable and thread-safe.
 */
final class LaterMethods {
  final Optional<MethodHandle> close;
  final Optional<MethodHandle> shutdown;
  final Optional<MethodHandle> shutdownNow;
  final Optional<MethodHandle> awaitTermination;
  final Optional<MethodHandle> isTerminated;

  LaterMethods(Class<? extends HttpClient> delegateClass) {
    MethodType noArgs = MethodType.methodType(void.class);
    close = find(delegateClass, "close", noArgs);
    shutdown = find(delegateClass, "shutdown", noArgs);
    shutdownNow = find(delegateClass, "shutdownNow", noArgs);
    awaitTermination = find(delegateClass, "awaitTermination",
        MethodType.methodType(boolean.class, Duration.class));
    isTerminated = find(delegateClass, "isTerminated", MethodType.methodType(boolean.class));
  }

  private static Optional<MethodHandle> find(Class<?> delegateClass, String name,
      MethodType type) {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    for (Class<?> owner : new Class<?>[] {HttpClient.class, delegateClass}) {
      try {
        return Optional.of(lookup.findVirtual(owner, name, type)
            .asType(type.insertParameterTypes(0, HttpClient.class)));
      } catch (NoSuchMethodException | IllegalAccessException | ClassCastException e) {
        // Not there on this JDK, or not public: try the next owner.
      } catch (RuntimeException e) {
        Swallowed.log(RateLimitedHttpClient.LOGGER, "looking up an HttpClient method", e);
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  static void invokeVoid(MethodHandle handle, HttpClient delegate) {
    try {
      handle.invokeExact(delegate);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  static boolean invokeBoolean(MethodHandle handle, HttpClient delegate) {
    try {
      return (boolean) handle.invokeExact(delegate);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  static boolean invokeAwait(MethodHandle handle, HttpClient delegate, Duration duration)
      throws InterruptedException {
    try {
      return (boolean) handle.invokeExact(delegate, duration);
    } catch (InterruptedException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
