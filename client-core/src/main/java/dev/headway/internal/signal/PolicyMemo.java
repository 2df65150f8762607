package dev.headway.internal.signal;

import dev.headway.QuotaPolicy;
import dev.headway.dialect.SignalSink;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Remembers what recently read {@code RateLimit-Policy} values said, so that the same value read
 * again (a server sends the same policies on every response) is not parsed again: its policies,
 * immutable, are reported as they were the first time. Only a value read cleanly (no warning)
 * is remembered; what it said depends on the value alone (the caps are applied by the sink
 * afterwards, on each report). Sixteen values, by the value's hash. Thread-safe: entries are
 * immutable and published through final fields; a lost race only costs a parse.
 */
final class PolicyMemo {
  private static final int SIZE = 16;
  /** A value longer than this is parsed every time (a memo of it would hold a lot). */
  private static final int MAX_LENGTH = 512;
  private static final Entry[] ENTRIES = new Entry[SIZE];

  private PolicyMemo() {}

  /**
   * Reports to {@code sink} the policies of {@code value}: those remembered, or those
   * {@code parse} reports (remembered if it reported no warning).
   */
  static void read(String value, SignalSink sink, BiConsumer<String, SignalSink> parse) {
    if (value.length() > MAX_LENGTH) {
      parse.accept(value, sink);
      return;
    }
    int h = value.hashCode();
    int slot = (h ^ (h >>> 16)) & (SIZE - 1);
    Entry entry = ENTRIES[slot];
    if (entry != null && entry.value.equals(value)) {
      for (QuotaPolicy policy : entry.policies) {
        sink.policy(policy, "ratelimit-policy", "ratelimit-policy");
      }
      return;
    }
    Recorder recorder = new Recorder(sink);
    parse.accept(value, recorder);
    if (recorder.clean) {
      ENTRIES[slot] = new Entry(value, List.copyOf(recorder.policies));
    }
  }

  /** A remembered value and the policies it said, in order. */
  private static final class Entry {
    final String value;
    final List<QuotaPolicy> policies;

    Entry(String value, List<QuotaPolicy> policies) {
      this.value = value;
      this.policies = policies;
    }
  }

  /** Passes every report on, keeping the policies and whether anything else was said. */
  private static final class Recorder extends ForwardingSink {
    final List<QuotaPolicy> policies = new ArrayList<>(2);
    boolean clean = true;

    Recorder(SignalSink sink) {
      super(sink);
    }

    @Override
    void otherThanPolicy() {
      clean = false;
    }

    @Override
    public void policy(QuotaPolicy policy) {
      policy(policy, "ratelimit-policy", "ratelimit-policy");
    }

    @Override
    public void policy(QuotaPolicy policy, String quotaField, String windowField) {
      if (!quotaField.equals("ratelimit-policy") || !windowField.equals("ratelimit-policy")) {
        clean = false; // not what a replay reports
      }
      policies.add(policy);
      sink.policy(policy, quotaField, windowField);
    }
  }
}
