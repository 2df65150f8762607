package dev.headway.internal.sf;

/** An RFC 9651 Item: a bare item with parameters. */
public record Item(BareItem value, Parameters parameters) implements Member {
  /** Returns the item as a field writes it, e.g. {@code "fixed";r=5;t=30}. */
  @Override
  public String toString() {
    return value.toString() + parameters;
  }
}
