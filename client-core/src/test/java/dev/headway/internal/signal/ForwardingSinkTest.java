package dev.headway.internal.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.QuotaUnit;
import dev.headway.SignalWarning;
import dev.headway.dialect.SignalSink;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The sinks that stand between a dialect and the parser's sink ({@link ForwardingSink}: the
 * {@code RateLimit} pairing of {@code pk}s, the {@code RateLimit-Policy} memo) pass on every
 * report of {@link SignalSink}, each through the same method with the same arguments: none is
 * dropped by a default method left in place.
 */
class ForwardingSinkTest {
  private static final QuotaPolicy POLICY = new QuotaPolicy("day", 500, QuotaUnit.REQUESTS,
      Optional.of(Duration.ofDays(1)), Optional.empty(), "ietf");

  /** A sink noting each call as "method(args)". */
  private static SignalSink recording(List<String> calls) {
    return (SignalSink) Proxy.newProxyInstance(SignalSink.class.getClassLoader(),
        new Class<?>[] {SignalSink.class},
        (proxy, method, args) -> {
          calls.add(method.getName() + Arrays.toString(args == null ? new Object[0] : args));
          return null;
        });
  }

  /** A sample argument of each type a {@link SignalSink} method takes. */
  private static Object sample(Class<?> type, int i) {
    if (type == QuotaPolicy.class) {
      return POLICY;
    }
    if (type == QuotaLimit.class) {
      return new QuotaLimit("day", 40, Optional.of(Duration.ofHours(1)), Optional.empty(), "ietf");
    }
    if (type == QuotaReset.class) {
      return new QuotaReset("day", Duration.ofMinutes(5), Optional.empty(), "ietf");
    }
    if (type == Duration.class) {
      return Duration.ofSeconds(7 + i);
    }
    if (type == String.class) {
      return "field" + i;
    }
    if (type == boolean.class) {
      return true;
    }
    if (type == long.class) {
      return 3L + i;
    }
    if (type == SignalWarning.Kind.class) {
      return SignalWarning.Kind.MALFORMED;
    }
    throw new AssertionError("no sample of " + type);
  }

  private static List<Method> reports() {
    return Arrays.stream(SignalSink.class.getMethods())
        .filter(m -> !Modifier.isStatic(m.getModifiers())).toList();
  }

  @Test
  void everyReportIsPassedOnThroughTheSameMethod() throws Exception {
    AtomicInteger others = new AtomicInteger();
    for (Method report : reports()) {
      List<String> calls = new ArrayList<>();
      ForwardingSink sink = new ForwardingSink(recording(calls)) {
        @Override
        void otherThanPolicy() {
          others.incrementAndGet();
        }
      };
      Object[] args = new Object[report.getParameterCount()];
      for (int i = 0; i < args.length; i++) {
        args[i] = sample(report.getParameterTypes()[i], i);
      }
      int before = others.get();

      report.invoke(sink, args);

      assertThat(calls).as("what %s passed on", report)
          .containsExactly(report.getName() + Arrays.toString(args));
      assertThat(others.get() - before).as("noted as other than a policy: %s", report)
          .isEqualTo(report.getName().equals("policy") ? 0 : 1);
    }
  }

  @Test
  void theMemoPassesOnEveryReportOfAParseAndRemembersOnlyAValueThatSaidPoliciesAlone() {
    for (Method report : reports()) {
      List<String> calls = new ArrayList<>();
      AtomicInteger parses = new AtomicInteger();
      Object[] args = new Object[report.getParameterCount()];
      for (int i = 0; i < args.length; i++) {
        args[i] = sample(report.getParameterTypes()[i], i);
      }
      boolean policyAlone = report.getName().equals("policy");
      if (policyAlone && args.length == 3) {
        args[1] = "ratelimit-policy"; // what a RateLimit-Policy value reports
        args[2] = "ratelimit-policy";
      }
      String value = "\"memo-test\";q=" + (1000 + reports().indexOf(report)) + ";w=60";
      for (int read = 0; read < 2; read++) {
        PolicyMemo.read(value, recording(calls), (v, sink) -> {
          parses.incrementAndGet();
          try {
            report.invoke(sink, args);
          } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
          }
        });
      }
      if (policyAlone) {
        assertThat(parses.get()).as("parses of a value that said %s", report).isOne();
        assertThat(calls).as("what %s passed on", report).hasSize(2)
            .allMatch(c -> c.startsWith("policy[" + POLICY));
      } else {
        assertThat(parses.get()).as("parses of a value that said %s", report).isEqualTo(2);
        assertThat(calls).as("what %s passed on", report)
            .containsExactly(report.getName() + Arrays.toString(args),
                report.getName() + Arrays.toString(args));
      }
    }
  }
}
