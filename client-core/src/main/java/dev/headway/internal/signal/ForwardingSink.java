package dev.headway.internal.signal;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.QuotaReset;
import dev.headway.SignalWarning;
import dev.headway.dialect.SignalSink;
import java.time.Duration;

/**
 * A sink that passes every report on to another, each through the same method: a subclass
 * overrides the reports it holds back or notes, and {@link #otherThanPolicy} to note that
 * anything but a policy was said. Thread-safety: as the subclass and the sink it passes to.
 */
abstract class ForwardingSink implements SignalSink {
  /** Where every report goes on to. */
  final SignalSink sink;

  ForwardingSink(SignalSink sink) {
    this.sink = sink;
  }

  /** Called before each report other than a policy is passed on; does nothing here. */
  void otherThanPolicy() {}

  @Override
  public void policy(QuotaPolicy policy) {
    sink.policy(policy);
  }

  @Override
  public void policy(QuotaPolicy policy, String quotaField, String windowField) {
    sink.policy(policy, quotaField, windowField);
  }

  @Override
  public void limit(QuotaLimit limit) {
    otherThanPolicy();
    sink.limit(limit);
  }

  @Override
  public void limit(QuotaLimit limit, String remainingField, String resetField) {
    otherThanPolicy();
    sink.limit(limit, remainingField, resetField);
  }

  @Override
  public void retryAfter(Duration delay) {
    otherThanPolicy();
    sink.retryAfter(delay);
  }

  @Override
  public void retryAfter(Duration delay, String field) {
    otherThanPolicy();
    sink.retryAfter(delay, field);
  }

  @Override
  public void reset(QuotaReset reset, String field) {
    otherThanPolicy();
    sink.reset(reset, field);
  }

  @Override
  public void documentedDelay(Duration delay, String source) {
    otherThanPolicy();
    sink.documentedDelay(delay, source);
  }

  @Override
  public void shouldRetry(boolean retry, String field) {
    otherThanPolicy();
    sink.shouldRetry(retry, field);
  }

  @Override
  public void cost(long units, String field) {
    otherThanPolicy();
    sink.cost(units, field);
  }

  @Override
  public void throttled() {
    otherThanPolicy();
    sink.throttled();
  }

  @Override
  public void warn(String field, SignalWarning.Kind kind, String message) {
    otherThanPolicy();
    sink.warn(field, kind, message);
  }
}
