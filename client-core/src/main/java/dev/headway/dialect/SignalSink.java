package dev.headway.dialect;

import dev.headway.QuotaLimit;
import dev.headway.QuotaPolicy;
import dev.headway.SignalWarning;
import java.time.Duration;

/** Collects what a {@link Dialect} read from one response. Not thread-safe. */
public interface SignalSink {
  /** Reports an advertised policy. */
  void policy(QuotaPolicy policy);

  /** Reports the current state of a quota. */
  void limit(QuotaLimit limit);

  /** Reports how long the server asks the client to wait before retrying. */
  void retryAfter(Duration delay);

  /** Reports that the response says the client was throttled, whatever its status. */
  void throttled();

  /** Reports a value that was not taken as sent. */
  void warn(String field, SignalWarning.Kind kind, String message);
}
