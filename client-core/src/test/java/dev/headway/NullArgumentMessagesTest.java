package dev.headway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.headway.dialect.Dialect;
import dev.headway.store.InMemoryQuotaStore;
import dev.headway.store.QuotaStore;
import dev.headway.testing.VirtualClock;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A null passed where the public API takes none fails with "X must not be null", naming the
 * argument, as every builder setter always did: never a bare {@link NullPointerException} nor
 * one whose message is just a name. Each public method and constructor of the entry families is
 * called once per reference parameter not marked {@code @Nullable}, with null there and a valid
 * value everywhere else.
 */
@Timeout(30)
class NullArgumentMessagesTest {
  private static final VirtualClock CLOCK = VirtualClock.create();
  private static final URI API = URI.create("https://api.example.com/items");

  static Stream<Arguments> calls() {
    List<Arguments> calls = new ArrayList<>();
    family(calls, "Pacer.Builder", Pacer.Builder.class, NullArgumentMessagesTest::builder);
    family(calls, "Pacer", Pacer.class, NullArgumentMessagesTest::pacer);
    family(calls, "ClientPolicy", ClientPolicy.class, null);
    family(calls, "ClientPolicy.TokenBucket", ClientPolicy.TokenBucket.class, null);
    family(calls, "ClientPolicy.FixedWindow", ClientPolicy.FixedWindow.class, null);
    family(calls, "PartitionKeyResolver", PartitionKeyResolver.class, null);
    family(calls, "RequestInfo", RequestInfo.class, null);
    family(calls, "HttpFields", HttpFields.class, null);
    family(calls, "HttpFields", HttpFields.class, HttpFields::empty);
    family(calls, "HttpFields.Builder", HttpFields.Builder.class, HttpFields::builder);
    family(calls, "SignalParser", SignalParser.class, SignalParser::create);
    family(calls, "SignalParser.Builder", SignalParser.Builder.class, SignalParser::builder);
    family(calls, "RetryBudget", RetryBudget.class, null);
    return calls.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("calls")
  void aNullArgumentIsNamed(String call, Executable member, Object target, int nullAt)
      throws Exception {
    Object[] args = arguments(member, nullAt);
    Throwable thrown = catchThrowable(() -> {
      try {
        if (member instanceof Method method) {
          method.invoke(target, args);
        } else {
          ((Constructor<?>) member).newInstance(args);
        }
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    });
    assertThat(thrown).as(call).isInstanceOf(NullPointerException.class)
        .hasMessageMatching("[a-zA-Z][a-zA-Z0-9]* must not be null");
  }

  /** A case per reference parameter of each public member, static or on {@code target}. */
  private static void family(List<Arguments> calls, String name, Class<?> type,
      @Nullable Supplier<?> target) {
    List<Executable> members = new ArrayList<>();
    for (Method method : type.getDeclaredMethods()) {
      boolean isStatic = Modifier.isStatic(method.getModifiers());
      if (Modifier.isPublic(method.getModifiers())) {
        if (isStatic == (target == null) && !method.isSynthetic()
            && !method.getName().equals("equals")) {
          members.add(method);
        }
      }
    }
    if (target == null) {
      for (Constructor<?> constructor : type.getConstructors()) {
        members.add(constructor);
      }
    }
    members.sort(Comparator.comparing(Executable::toGenericString));
    for (Executable member : members) {
      Parameter[] parameters = member.getParameters();
      for (int i = 0; i < parameters.length; i++) {
        if (parameters[i].getType().isPrimitive()
            || parameters[i].getAnnotatedType().isAnnotationPresent(Nullable.class)) {
          continue;
        }
        String call = name + "." + member.getName() + "(" + Arrays.stream(parameters)
            .map(p -> p.getType().getSimpleName()).reduce((a, b) -> a + ", " + b).orElse("")
            + ") with null at " + i;
        calls.add(Arguments.of(call, member, target == null ? null : target.get(), i));
      }
    }
  }

  private static Object[] arguments(Executable member, int nullAt) {
    Class<?>[] types = member.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      args[i] = i == nullAt ? null : valid(types[i]);
    }
    return args;
  }

  /** A valid value of {@code type}, as a parameter of the families above takes it. */
  private static Object valid(Class<?> type) {
    if (type == int.class) {
      return 1;
    } else if (type == long.class) {
      return 1L;
    } else if (type == double.class) {
      return 0.5;
    } else if (type == boolean.class) {
      return false;
    } else if (type == String.class) {
      return "api.example.com";
    } else if (type == String[].class) {
      return new String[0];
    } else if (type == byte[].class) {
      return new byte[0];
    } else if (type == Duration.class) {
      return Duration.ofSeconds(1);
    } else if (type == URI.class) {
      return API;
    } else if (type == RequestInfo.class) {
      return RequestInfo.get(API);
    } else if (type == RateLimitSignal.class) {
      return RateLimitSignal.none(200);
    } else if (type == HttpFields.class) {
      return HttpFields.empty();
    } else if (type == Ticker.class || type == Scheduler.class) {
      return CLOCK;
    } else if (type == InstantSource.class) {
      return CLOCK;
    } else if (type == Executor.class) {
      return (Executor) Runnable::run;
    } else if (type == QuotaStore.class) {
      return InMemoryQuotaStore.create();
    } else if (type == SignalParser.class) {
      return SignalParser.create();
    } else if (type == RequestCost.class) {
      return RequestCost.oneUnit();
    } else if (type == PartitionKeyResolver.class) {
      return PartitionKeyResolver.origin();
    } else if (type == PacingStrategy.class) {
      return PacingStrategy.spread();
    } else if (type == Jitter.class) {
      return Jitter.none();
    } else if (type == RetryBudget.class) {
      return RetryBudget.off();
    } else if (type == PacerListener.class) {
      return (PacerListener) event -> { };
    } else if (type == ClientPolicy.class) {
      return ClientPolicy.tokenBucket("hourly", 10, Duration.ofHours(1));
    } else if (type == Function.class) {
      return (Function<Object, Object>) request -> null;
    } else if (type == Optional.class) {
      return Optional.empty();
    } else if (type == Map.class) {
      return Map.of();
    } else if (type == Dialect.class) {
      return SignalParser.create().dialects().get(0);
    } else if (type == java.util.OptionalLong.class) {
      return java.util.OptionalLong.empty();
    } else if (type == List.class) {
      return List.of();
    } else if (type == java.time.Instant.class) {
      return java.time.Instant.EPOCH;
    } else if (type == SanityCaps.class) {
      return SanityCaps.defaults();
    }
    throw new AssertionError("no valid value of " + type + " known: add one");
  }

  private static Pacer.Builder builder() {
    return Pacer.builder().ticker(CLOCK).wallClock(CLOCK).scheduler(CLOCK);
  }

  private static Pacer pacer() {
    return builder().build();
  }
}
