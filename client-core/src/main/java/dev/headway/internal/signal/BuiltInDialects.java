package dev.headway.internal.signal;

import dev.headway.dialect.Dialect;
import java.util.List;

/** The dialects every {@link dev.headway.SignalParser} tries by default, in order. */
public final class BuiltInDialects {
  private BuiltInDialects() {}

  /** Returns the built-in dialects. */
  public static List<Dialect> all() {
    return List.of(); // TODO: issue 2
  }
}
