package dev.headway.internal.signal;

import dev.headway.HttpFields;
import dev.headway.RateLimitSignal;
import dev.headway.SanityCaps;
import dev.headway.dialect.Dialect;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Runs the dialects over one response, applies the caps, and builds the signal. Thread-safe. */
public final class SignalReader {
  private final SanityCaps caps;
  private final List<Dialect> dialects;

  /** Creates a reader. */
  public SignalReader(SanityCaps caps, List<Dialect> dialects) {
    this.caps = caps;
    this.dialects = dialects;
  }

  /** Reads one response; never throws for anything a server sends. */
  public RateLimitSignal read(int status, HttpFields headers, byte @Nullable [] body,
      Instant receivedAt) {
    return RateLimitSignal.none(status); // TODO: issue 2
  }
}
